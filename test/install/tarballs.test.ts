import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix, waitFor } from '@guardagent/testing';

// `npm run pack`'s tarballs installed in an empty project outside the repository, as a user would:
// the agent SDK alone (no Redis client, no native addon in its tree, types for TypeScript), then
// the adapters, the MCP proxy and the CLI beside it; the installed CLI runs the stack (`guardagent
// up`), a script guards tool calls through its gateway with the installed SDK, and `guardagent mcp`
// answers over stdio. The adapters and the proxy take the SDK from the project (a peer): one copy
// of it, so what they throw is the class the user imports. One project, installed once per step,
// serves every assertion.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(ROOT, 'dist', 'packages');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'packages', 'client', 'package.json'), 'utf8')) as { version: string }).version;
const tarball = (name: string) => join(OUT, `guardagent-${name}-${VERSION}.tgz`);
const EVERYTHING_SERVER = createRequire(join(ROOT, 'packages', 'mcp-proxy', 'package.json')).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const ADMIN = 'install-test-admin-key-0123456789';

const project = mkdtempSync(join(tmpdir(), 'ga-install-'));
// Only what a user's shell has: none of vitest's or npm's own variables (conditions, npm_config_*).
// npm_config_nodedir stays: scripts/with-node.sh points node-gyp at the chosen Node's headers with it.
const baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir(), LANG: 'C.UTF-8' };
if (process.env.npm_config_nodedir) baseEnv.npm_config_nodedir = process.env.npm_config_nodedir;
const children: ChildProcess[] = [];
const timings: Record<string, number> = {};

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

async function npmInstall(...tarballs: string[]): Promise<void> {
  // The npm cache holds every third-party package (the repository was installed from it). This
  // machine reaches no prebuilt-binary host: isolated-vm 5 (the Node 20 build) compiles at once
  // instead of waiting for its download to fail (prebuild-install reads the package's name here;
  // isolated-vm 6, Node 22 and 24, ships its binaries in the package and is not affected).
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], {
    cwd: project,
    env: { ...baseEnv, npm_config_build_from_source: 'isolated-vm' },
    maxBuffer: 16 * 1024 * 1024,
  });
}

const installed = (name: string) => existsSync(join(project, 'node_modules', name));
const bin = join(project, 'node_modules', '.bin', 'guardagent');

beforeAll(async () => {
  await timed('pack', () => run(process.execPath, [join(ROOT, 'scripts', 'pack.mjs')], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'guarded-agent', private: true, type: 'module' }));
});

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(project, { recursive: true, force: true });
  console.log(`install test timings (ms): ${JSON.stringify(timings)}`);
});

describe('the agent SDK tarball on its own', () => {
  beforeAll(() => timed('install SDK', () => npmInstall(tarball('client'))));

  it('installs no Redis client, no BullMQ and no native addon', () => {
    expect(installed('@guardagent/client')).toBe(true);
    const tree = readdirSync(join(project, 'node_modules')).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(project, 'node_modules', name)).map((sub) => `${name}/${sub}`) : [name],
    );
    expect(tree).toContain('zod');
    expect(tree.filter((name) => /^(bullmq|ioredis|isolated-vm.*|msgpackr.*)$/.test(name))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '@guardagent', 'client', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@guardagent/client', version: VERSION, type: 'module' });
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies as object)).not.toContain('ioredis');
  });

  it('gives a TypeScript project its types (strict, NodeNext, declarations checked too)', async () => {
    writeFileSync(
      join(project, 'typed.ts'),
      [
        "import { HttpTransport, GuardDeniedError, guardTool, exitCodeOfError, type Decision } from '@guardagent/client';",
        "const transport = new HttpTransport({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'key' });",
        "const refund = guardTool(async (args: { amount: number }) => args.amount * 2, { transport, policy: 'p', toolName: 'refund' });",
        'export const doubled: Promise<number> = refund({ amount: 1 });',
        'export const code: number = exitCodeOfError(new GuardDeniedError(\'refund\', [\'no\'], {} as Decision));',
        '// @ts-expect-error a transport is not a number: the declarations are real types, not any',
        'export const wrong: number = transport;',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ['typed.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'lib', 'tsc.js');
    const result = await timed('tsc', () => run(process.execPath, [tsc, '-p', project], { cwd: project }).then(
      () => ({ code: 0, out: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    ));
    expect(result.out).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('the adapters, the MCP proxy and the CLI beside it', () => {
  const redisUrl = testRedisUrl();
  let gateway = '';

  beforeAll(async () => {
    await timed('install adapters, proxy, CLI', () => npmInstall(tarball('ai-sdk'), tarball('agents-openai'), tarball('mcp-proxy'), tarball('cli')));
  });

  it('imports every library from the project', async () => {
    writeFileSync(
      join(project, 'imports.mjs'),
      [
        "import { guardTools } from '@guardagent/ai-sdk';",
        "import { guardAgentTool } from '@guardagent/agents-openai';",
        "import { CallGuard, startStdioProxy } from '@guardagent/mcp-proxy';",
        'console.log(JSON.stringify([typeof guardTools, typeof guardAgentTool, typeof CallGuard, typeof startStdioProxy]));',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['imports.mjs'], { cwd: project, env: baseEnv });
    expect(JSON.parse(stdout)).toEqual(['function', 'function', 'function', 'function']);
    // Peers come from the user's project, as npm installs them: one `ai`, one `@openai/agents`.
    expect(installed('ai') && installed('@openai/agents')).toBe(true);
  });

  it('shares the project\'s one copy of the SDK: the adapters\' and the proxy\'s errors are the classes imported from @guardagent/client', async () => {
    for (const name of ['ai-sdk', 'agents-openai', 'mcp-proxy']) {
      const dir = join(project, 'node_modules', '@guardagent', name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
      expect(manifest.peerDependencies?.['@guardagent/client'], name).toBe(VERSION);
      expect(existsSync(join(dir, 'node_modules', '@guardagent', 'client')), name).toBe(false);
      const bundle = readFileSync(join(dir, 'dist', 'index.js'), 'utf8');
      expect(bundle, name).toContain('from "@guardagent/client"');
      expect(bundle, name).not.toMatch(/class (GuardAgentError|GuardDeniedError|ValidationError|HttpTransport)\b/);
    }
    // No gateway needed: transports that fail. The ai-sdk tool wraps the failure in UnavailableError;
    // the proxy's CallGuard reads a ValidationError the user's transport throws as a malformed call.
    writeFileSync(
      join(project, 'one-sdk.mjs'),
      `import { GuardAgentError, UnavailableError, ValidationError, InMemoryHeldCalls, exitCodeOfError } from '@guardagent/client';
import { guardTools } from '@guardagent/ai-sdk';
import { CallGuard } from '@guardagent/mcp-proxy';
import { tool } from 'ai';
import { z } from 'zod';
const results = {};
const down = { check: async () => { throw new Error('no gateway here'); } };
const tools = guardTools({ send: tool({ inputSchema: z.object({ to: z.string() }), execute: async ({ to }) => to }) }, { transport: down, policy: 'p', subject: { id: 'u-1' } });
try {
  await tools.send.execute({ to: 'friend' }, { toolCallId: 'c-1', messages: [] });
  results.aiSdk = 'ran';
} catch (error) {
  results.aiSdk = { unavailable: error instanceof UnavailableError, guardAgentError: error instanceof GuardAgentError, exitCode: exitCodeOfError(error) };
}
const invalid = { check: async () => { throw new ValidationError('guard job', [{ path: 'output', message: 'too large' }]); } };
const guard = new CallGuard({ transport: invalid, policy: 'p', subject: { id: 'u-1' }, heldCalls: new InMemoryHeldCalls() });
const verdict = await guard.checkCall('send', { to: 'friend' }, { upstream: '', recentCalls: [] });
results.mcpProxy = { outcome: verdict.outcome, reasons: verdict.reasons };
console.log(JSON.stringify(results));
`,
    );
    const { stdout } = await run(process.execPath, ['one-sdk.mjs'], { cwd: project, env: baseEnv });
    expect(JSON.parse(stdout)).toEqual({
      aiSdk: { unavailable: true, guardAgentError: true, exitCode: 6 },
      mcpProxy: { outcome: 'deny', reasons: ['the call is not a valid guard job: Invalid guard job: output: too large'] },
    });
  });

  it('types the adapters for a TypeScript project, with the SDK\'s transport and the frameworks\' own types', async () => {
    writeFileSync(
      join(project, 'typed-adapters.ts'),
      [
        "import { HttpTransport } from '@guardagent/client';",
        "import { guardTools } from '@guardagent/ai-sdk';",
        "import { guardAgentToolInput } from '@guardagent/agents-openai';",
        "import { tool } from 'ai';",
        "import { z } from 'zod';",
        "const transport = new HttpTransport({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'key' });",
        'export const tools = guardTools(',
        '  { refund: tool({ inputSchema: z.object({ amount: z.number() }), execute: async ({ amount }) => amount * 2 }) },',
        "  { transport, policy: 'p', subject: { id: 'u-1' } },",
        ');',
        "export const guardrail = guardAgentToolInput({ transport, policy: 'p', subject: { id: 'u-1' } });",
        "// @ts-expect-error a subject is required: the adapters' declarations are real types, not any",
        "guardTools({}, { transport, policy: 'p' });",
        '',
      ].join('\n'),
    );
    // skipLibCheck as most projects set it: `ai`'s own declarations import `json-schema`, whose
    // types it does not depend on. The repository's @types/node stands in for the project's.
    writeFileSync(
      join(project, 'tsconfig.adapters.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['typed-adapters.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'lib', 'tsc.js');
    const result = await timed('tsc adapters', () =>
      run(process.execPath, [tsc, '-p', join(project, 'tsconfig.adapters.json')], { cwd: project }).then(
        () => ({ code: 0, out: '' }),
        (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
      ),
    );
    expect(result.out).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs `guardagent --version` from the installed bin', async () => {
    const { stdout } = await run(bin, ['--version'], { cwd: project, env: baseEnv });
    expect(stdout.trim()).toBe(VERSION);
  });

  it('guards tool calls with the installed SDK through the installed CLI\'s gateway (`guardagent up`)', async () => {
    const child = spawn(bin, ['up', '--gateway-port', '0'], {
      cwd: project,
      env: { ...baseEnv, REDIS_URL: redisUrl, GUARDAGENT_PREFIX: uniquePrefix('install'), GUARDAGENT_ADMIN_KEY: ADMIN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    gateway = await timed('up', () => waitFor(async () => /gateway on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], 90_000, `the gateway's address (stderr: ${stderr})`));
    await waitFor(async () => (await fetch(`${gateway}/readyz`).catch(() => null))?.status === 200, 60_000, 'the gateway to be ready');

    // A compiled policy: its program runs in the sandbox's forked worker (isolated-vm), from the bundle.
    // The SDK's HttpTransport goes into the ai-sdk adapter too, whose refusal is the SDK's GuardDeniedError.
    writeFileSync(
      join(project, 'agent.mjs'),
      `import { HttpTransport, GuardDeniedError, guardTool, exitCodeOfError } from '@guardagent/client';
import { guardTools } from '@guardagent/ai-sdk';
import { tool } from 'ai';
import { z } from 'zod';
const transport = new HttpTransport({ baseUrl: process.env.GATEWAY, apiKey: process.env.API_KEY });
await transport.putPolicy({
  id: 'install-policy',
  requests: 'Deny sending to strangers.',
  mode: 'compiled',
  program: "return { deny: JSON.stringify(output).includes('stranger'), reasons: JSON.stringify(output).includes('stranger') ? ['no strangers'] : [] };",
  examples: [{ input: 'send to stranger', output: 'stranger', label: 1 }, { input: 'send to friend', output: 'friend', label: 0 }],
});
const compiled = await transport.compile('install-policy');
const send = guardTool(async ({ to }) => \`sent to \${to}\`, { transport, policy: 'install-policy', toolName: 'send', output: ({ to }) => to });
const results = { compiled: compiled.status, allowed: await send({ to: 'friend' }) };
try {
  await send({ to: 'stranger' });
  results.denied = 'ran';
} catch (error) {
  results.denied = error instanceof GuardDeniedError ? error.reasons : String(error);
  results.exitCode = exitCodeOfError(error);
}
const tools = guardTools(
  { send: tool({ inputSchema: z.object({ to: z.string() }), execute: async ({ to }) => \`sent to \${to}\` }) },
  { transport, policy: 'install-policy', subject: { id: 'u-1' } },
);
results.aiSdkAllowed = await tools.send.execute({ to: 'friend' }, { toolCallId: 'c-1', messages: [] });
try {
  await tools.send.execute({ to: 'stranger' }, { toolCallId: 'c-2', messages: [] });
  results.aiSdkDenied = 'ran';
} catch (error) {
  results.aiSdkDenied = { instanceOf: error instanceof GuardDeniedError, reasons: error.reasons, exitCode: exitCodeOfError(error) };
}
console.log(JSON.stringify(results));
`,
    );
    const { stdout } = await timed('agent script', () => run(process.execPath, ['agent.mjs'], { cwd: project, env: { ...baseEnv, GATEWAY: gateway, API_KEY: ADMIN } }));
    expect(JSON.parse(stdout)).toEqual({
      compiled: 'promoted',
      allowed: 'sent to friend',
      denied: ['no strangers'],
      exitCode: 1,
      aiSdkAllowed: 'sent to friend',
      aiSdkDenied: { instanceOf: true, reasons: ['no strangers'], exitCode: 1 },
    });

    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);
  });

  it('runs a benchmark on its bundled sample with the installed CLI (data files and WordNet found from the bundle)', async () => {
    const { stdout } = await timed('eval', () =>
      run(bin, ['eval', '--benchmark', 'mind2web-sc', '--limit', '4', '--json'], {
        cwd: project,
        env: { ...baseEnv, REDIS_URL: redisUrl, GUARDAGENT_PREFIX: uniquePrefix('install-eval') },
      }),
    );
    expect(JSON.parse(stdout)).toMatchObject({ benchmark: 'mind2web-sc', n: 4, guardErrors: 0, wrong: [], lpa: 100 });
  });

  it('runs `guardagent mcp` from the installed bin: it answers initialize over stdio and guards tools/call', async () => {
    writeFileSync(
      join(project, 'mcp-policy.json'),
      JSON.stringify({
        id: 'install-mcp',
        specification: 'An assistant with demo tools.',
        toolbox: ['core', 'rails'],
        rails: { roles: { assistant: { tools: ['echo'] } } },
      }),
    );
    const child = spawn(bin, ['mcp', '--policy', 'mcp-policy.json', '--subject', JSON.stringify({ id: 'u-1', roles: ['assistant'] }), '--', process.execPath, EVERYTHING_SERVER, 'stdio'], {
      cwd: project,
      env: { ...baseEnv, REDIS_URL: redisUrl, GUARDAGENT_PREFIX: uniquePrefix('install-mcp') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    interface RpcReply {
      result: { protocolVersion?: string; capabilities?: { tools?: object }; tools?: Array<{ name: string }>; content?: unknown; isError?: boolean };
    }
    const replies = new Map<number, unknown>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === 'number') replies.set(message.id, message);
    });
    const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const reply = (id: number) => waitFor(async () => replies.get(id) as RpcReply | undefined, 90_000, `reply ${id} (stderr: ${stderr})`);

    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'install-test', version: '1' } } });
    const initialized = await timed('mcp initialize', () => reply(1));
    expect(initialized.result.protocolVersion).toBeTypeOf('string');
    expect(initialized.result.capabilities?.tools).toBeDefined();
    send({ method: 'notifications/initialized' });

    send({ id: 2, method: 'tools/list', params: {} });
    expect((await reply(2)).result.tools?.map((tool) => tool.name)).toEqual(['echo']);
    send({ id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } });
    expect(JSON.stringify((await reply(3)).result.content)).toContain('Echo: hello');
    send({ id: 4, method: 'tools/call', params: { name: 'get-env', arguments: {} } });
    const refused = (await reply(4)).result;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("tool 'get-env' is not allowed");

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin!.end();
    child.kill('SIGTERM');
    expect(await exited).not.toBeNull();
  });
});
