import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link in the README and docs/*.md resolves: the file exists, and an anchor
 * (`page.md#section`, `#section`) names a heading of that page, slugged as GitHub slugs them.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

const withoutCode = (text: string): string => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's heading slug: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2… */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutCode(readFileSync(path, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1]!
      .replace(/`/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const match of withoutCode(readFileSync(join(ROOT, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
    if (!existsSync(file)) broken.push(`${target}: no such file`);
    else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${target}: no such heading`);
  }
  return broken;
}

describe('links in the README and docs/', () => {
  it.each(PAGES)('%s: every relative link resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});
