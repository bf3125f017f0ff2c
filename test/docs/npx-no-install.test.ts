/**
 * Every configuration the docs give that runs dsh-mode through `npx` (editor agent servers, acpx, CI workflows)
 * says `--no-install`: without it `npx` fetches a package of that name from the registry when the project has none
 * installed, and dsh-mode is not published there, so that would run whoever published the name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * What the docs give as configuration: JSON and YAML blocks (editor settings, CI workflows), and the agent
 * command lines of `sh` blocks (`acpx --agent "…"`), which a client runs again on every command. Commands a
 * person types in a project that has dsh-mode installed are not configuration.
 */
function configBlocks(text: string): string[] {
  return [...text.matchAll(/^```(json|jsonc|ya?ml|sh)\n([\s\S]*?)^```$/gm)].flatMap((m) =>
    m[1] === 'sh' ? [...m[2]!.matchAll(/--agent\s+"([^"]*)"/g)].map((a) => a[1]!) : [m[2]!],
  );
}

/** The ways a block can start dsh-mode through npx, each with or without `--no-install`. */
function npxRuns(block: string): string[] {
  const inline = [...block.matchAll(/npx((?:\s+-[-\w]+)*)\s+dsh-mode\b/g)].map((m) => m[0]);
  const json = [...block.matchAll(/"command":\s*"npx",\s*"args":\s*\[([^\]]*)\]/g)]
    .filter((m) => m[1]!.includes('"dsh-mode"'))
    .map((m) => m[0]);
  return [...inline, ...json];
}

describe('npx in the docs', () => {
  it.each(pages)('%s starts dsh-mode through npx only with --no-install in configurations', (page) => {
    const blocks = configBlocks(readFileSync(join(root, page), 'utf8'));
    const runs = blocks.flatMap(npxRuns);
    expect(runs.filter((r) => !r.includes('--no-install'))).toEqual([]);
  });

  it('finds the editor, acpx and CI configurations it guards', () => {
    const all = pages.flatMap((p) => configBlocks(readFileSync(join(root, p), 'utf8')).flatMap(npxRuns));
    expect(all.filter((r) => r.startsWith('"command"')).length).toBeGreaterThanOrEqual(3);
    expect(all.some((r) => r.startsWith('npx --no-install dsh-mode'))).toBe(true);
  });
});
