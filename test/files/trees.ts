/**
 * Generated file trees with symbolic links, for properties that compare a resolution with the kernel: names from
 * a small set (so paths meet the tree often), folders, files whose content is their own path, and links with
 * relative targets that climb with `..` or absolute ones into the workspace or a folder beside it.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

const NAMES = ['a', 'b', '.env', '.git'];
const name = fc.constantFrom(...NAMES);
const step = fc.oneof(
  { weight: 4, arbitrary: name },
  { weight: 2, arbitrary: fc.constant('..') },
  { weight: 1, arbitrary: fc.constant('.') },
  { weight: 1, arbitrary: fc.constant('') },
);

/** A relative path of names, `..`, `.` and empty components (repeated slashes). */
export const relativePath: fc.Arbitrary<string> = fc
  .array(step, { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join('/'));

/** One entry of a tree: a folder, a file, or a link (`@ws/…` and `@outside/…` are absolute targets). */
export type Entry =
  { path: string[]; kind: 'dir' | 'file' } | { path: string[]; kind: 'link'; target: string };

/** An entry, as {@link build} creates it. */
export const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({ path: fc.array(name, { minLength: 1, maxLength: 3 }), kind: fc.constantFrom('dir', 'file') }),
  fc.record({
    path: fc.array(name, { minLength: 1, maxLength: 3 }),
    kind: fc.constant('link'),
    target: fc.oneof(
      relativePath,
      relativePath.map((p) => `@ws/${p}`),
      relativePath.map((p) => `@outside/${p}`),
    ),
  }) as fc.Arbitrary<Entry>,
);

/** A tree's entries. */
export const tree: fc.Arbitrary<Entry[]> = fc.array(entry, { minLength: 1, maxLength: 12 });

/**
 * Creates `entries` under `<root>/ws`, with `<root>/outside` beside it; an entry whose parent is missing or not a
 * folder, or whose name is taken, is skipped. `root` should be deep enough that no relative link climbs out of
 * the test's own folder.
 * @returns the workspace folder
 */
export function build(root: string, entries: readonly Entry[]): string {
  const workspace = join(root, 'ws');
  mkdirSync(join(root, 'outside'), { recursive: true });
  mkdirSync(workspace);
  for (const e of entries) {
    const at = join(workspace, ...e.path);
    try {
      if (e.kind === 'link')
        symlinkSync(e.target.replace(/^@ws/, workspace).replace(/^@outside/, join(root, 'outside')), at);
      else if (e.kind === 'dir') mkdirSync(at);
      else writeFileSync(at, e.path.join('/'), { flag: 'wx' });
    } catch {
      // The tree is what it is.
    }
  }
  return workspace;
}
