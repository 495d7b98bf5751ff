import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { withEnvTable } from '../src/env-docs';
import { CONFIG_ENV_NAMES, ENV_VARIABLES, GuardConfigSchema, envName, loadConfig, readEnv } from '../src/index';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const NAMES = new Set<string>(ENV_VARIABLES.map((variable) => variable.name));

/** Source files outside @guardagent/config that ship (packages/*\/src, services/*\/src), tests excluded. */
function shippedSources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'test' || name === '__tests__' || name === 'node_modules' ? [] : walk(path);
      return /\.(ts|tsx|mts|js|mjs)$/.test(name) && !/\.(test|spec)\.[a-z]+$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
    });
  return ['packages', 'services'].flatMap((top) =>
    readdirSync(join(ROOT, top))
      .filter((name) => !(top === 'packages' && name === 'config'))
      .map((name) => join(ROOT, top, name, 'src'))
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      .flatMap(walk),
  );
}

/** The leaf paths of a zod object schema (`sandbox.wallMs`). */
function leafPaths(schema: z.ZodObject, prefix = ''): string[] {
  return Object.entries(schema.shape).flatMap(([key, field]) =>
    field instanceof z.ZodObject ? leafPaths(field, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

describe('ENV_VARIABLES', () => {
  it('lists each variable and key once', () => {
    const names = ENV_VARIABLES.map((variable) => variable.name);
    const keys = ENV_VARIABLES.map((variable) => variable.key);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });

  it('lists a variable for every GuardConfig field, and loadConfig reads exactly those', () => {
    expect(Object.keys(CONFIG_ENV_NAMES).sort()).toEqual(leafPaths(GuardConfigSchema).sort());
  });

  it("gives each config variable the default GuardConfigSchema has", () => {
    const config = loadConfig({}) as unknown as Record<string, unknown>;
    for (const variable of ENV_VARIABLES.filter((v) => 'config' in v)) {
      const stated = /^`([^`]*)`/.exec(variable.default)?.[1];
      const actual = variable.key.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], config);
      if (stated === undefined) expect(actual, `${variable.name} (default "${variable.default}")`).toBeUndefined();
      else expect(String(actual), variable.name).toBe(stated);
    }
  });

  it('reads variables by key, an empty one as unset', () => {
    expect(envName('gatewayUrl')).toBe('GUARDAGENT_URL');
    expect(readEnv('gatewayHost', { GUARDAGENT_GATEWAY_HOST: '127.0.0.1' })).toBe('127.0.0.1');
    expect(readEnv('gatewayHost', { GUARDAGENT_GATEWAY_HOST: '' })).toBeUndefined();
    expect(readEnv('gatewayHost', {})).toBeUndefined();
  });
});

describe('docs/operations.md', () => {
  it('has the table of environment variables that `npm run docs:env` writes', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    expect(doc, 'docs/operations.md is out of date with packages/config/src/env-variables.ts: run `npm run docs:env`').toBe(withEnvTable(doc));
  });
});

describe('variables outside @guardagent/config', () => {
  const sources = shippedSources().map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

  it('finds the sources', () => {
    expect(sources.some((s) => s.path === join('services', 'gateway', 'src', 'main.ts'))).toBe(true);
  });

  it('mention only listed GUARDAGENT_* variables (add a new one to ENV_VARIABLES)', () => {
    const unlisted: string[] = [];
    for (const { path, text } of sources) {
      for (const [token] of text.matchAll(/GUARDAGENT_[A-Z0-9_]+/g)) {
        // `GUARDAGENT_QUOTA_*` in prose names a family of listed variables.
        const known = token.endsWith('_') ? [...NAMES].some((name) => name.startsWith(token)) : NAMES.has(token);
        if (!known) unlisted.push(`${path}: ${token}`);
      }
    }
    expect(unlisted, 'variables missing from packages/config/src/env-variables.ts').toEqual([]);
  });

  it('read GuardAgent variables only through readEnv/envName or loadConfig, never by a literal name', () => {
    const literalReads: string[] = [];
    for (const { path, text } of sources) {
      // env.GUARDAGENT_X, env['GUARDAGENT_X'], and a string that is a variable's whole name ('GUARDAGENT_X').
      const patterns = [/\benv\s*\.\s*((?:GUARDAGENT_|REDIS_URL\b|OPENAI_API_KEY\b)[A-Z0-9_]*)/g, /\benv\s*\[\s*['"`]([A-Za-z0-9_]+)['"`]\s*\]/g, /['"`](GUARDAGENT_[A-Z0-9_]+)['"`]/g];
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) literalReads.push(`${path}: ${match[0]}`);
    }
    expect(literalReads, 'use readEnv(key) / envName(key) from @guardagent/config').toEqual([]);
  });

  it('read other variables only when they are listed (the OpenTelemetry SDK and npm ones included)', () => {
    const unlisted: string[] = [];
    for (const { path, text } of sources) {
      for (const match of text.matchAll(/\b(?:process\.)?env\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)) {
        const name = match[1]!;
        if (/^[A-Z][A-Z0-9_]*$|^npm_/.test(name) && !NAMES.has(name)) unlisted.push(`${path}: ${match[0]}`);
      }
    }
    expect(unlisted, 'variables missing from packages/config/src/env-variables.ts').toEqual([]);
  });
});
