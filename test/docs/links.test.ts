/**
 * Links in the reference pages and the guide resolve: every relative link names a file that exists, and every
 * `#anchor` is a heading of its target (GitHub's slugs). Every code `dsh-mode lint` reports has its section in
 * lint-rules.md under its own id (SARIF `helpUri` and messages link `lint-rules.md#<id>`), and every command has
 * its section in cli.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { listRuleMetadata } from '../../src/cli/formatters/sarif-rules.js';

const root = resolve(import.meta.dirname, '../..');
const PAGES = [
  ...readdirSync(join(root, 'docs/reference'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/reference/${f}`),
  'docs/guide.md',
];

/** GitHub's heading anchor. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file: its headings outside code fences, duplicates suffixed `-1`, `-2`, …. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence: string | null = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]!;
      else if (line.startsWith(fence)) fence = null;
      continue;
    }
    const h = fence === null ? /^#{1,6} (.*)$/.exec(line) : null;
    if (!h) continue;
    const base = slug(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The link targets of a Markdown file, outside code fences and code spans. */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('docs links', () => {
  for (const page of PAGES) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const broken: string[] = [];
      for (const target of links(join(root, page))) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), path);
        if (!existsSync(file)) broken.push(`${target}: no such file`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) {
          broken.push(`${target}: no such heading`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  it('lint-rules.md has a section for every code lint reports, anchored by the code', () => {
    const have = anchors(join(root, 'docs/reference/lint-rules.md'));
    for (const { id } of listRuleMetadata()) expect(have.has(id), id).toBe(true);
  });

  it('cli.md has a section for every command', () => {
    const have = anchors(join(root, 'docs/reference/cli.md'));
    for (const name of Object.keys(commands)) expect(have.has(name), name).toBe(true);
  });
});
