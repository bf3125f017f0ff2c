/**
 * The one path resolution (src/files/resolve-path.ts) against the kernel. The examples build real trees with real
 * symlinks in a temp folder; the property generates trees and paths and compares the resolver with what the
 * kernel itself does on the same tree: the file `open` reaches (read back from `/proc/self/fd`), the error it
 * fails with, and the file `open(O_CREAT)` creates for a path whose last name is missing.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, relativePath, tree } from './trees.js';
import {
  identityOf,
  MAX_LINKS,
  resolveWorkspacePath,
  type WorkspacePathResolution,
} from '../../src/files/resolve-path.js';

const PROC_FD = process.platform === 'linux';

let base: string;
let ws: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-resolve-')));
  ws = join(base, 'ws');
  mkdirSync(join(ws, 'docs', 'deep'), { recursive: true });
  mkdirSync(join(ws, '.git'));
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
  writeFileSync(join(ws, '.env'), 'KEY=1\n');
  writeFileSync(join(ws, 'docs', 'a.md'), 'a\n');
  writeFileSync(join(base, 'outside', 'secret'), 's\n');
  // Links a cloned repository can ship.
  symlinkSync('../.git', join(ws, 'docs', 'g')); // to the repository's own git folder
  symlinkSync('..', join(ws, 'docs', 'up')); // to the workspace root
  symlinkSync('../.env', join(ws, 'docs', 'env')); // to a denied file
  symlinkSync('deep', join(ws, 'docs', 'd')); // inside, harmless
  symlinkSync('../../outside', join(ws, 'docs', 'out')); // out of the workspace
  symlinkSync(join(base, 'outside', 'new'), join(ws, 'docs', 'dangling')); // to a missing file outside
  symlinkSync('loop2', join(ws, 'loop1'));
  symlinkSync('loop1', join(ws, 'loop2'));
  symlinkSync(ws, join(base, 'ws-link')); // the workspace itself through a link
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

function ok(resolution: WorkspacePathResolution) {
  if (!resolution.ok) throw new Error(`refused: ${resolution.reason}`);
  return resolution;
}

describe('resolveWorkspacePath: the walk the kernel makes', () => {
  it('resolves a plain path with no links to itself, recording the identity of the file', () => {
    const r = ok(resolveWorkspacePath(ws, 'docs/a.md'));
    expect(r).toMatchObject({ target: join(ws, 'docs', 'a.md'), relative: 'docs/a.md', missing: 0 });
    expect(r.anchor).toBe(identityOf(lstatSync(join(ws, 'docs', 'a.md'), { bigint: true })));
    expect(r.anchorIsFolder).toBe(false);
  });

  it('replaces a link by its target and applies a later `..` to the target, not to the link', () => {
    // `docs/d/../a.md`: d → docs/deep, so `..` is docs: docs/a.md (the same as lexical here).
    expect(ok(resolveWorkspacePath(ws, 'docs/d/../a.md')).relative).toBe('docs/a.md');
    // `docs/g/../.env`: g → .git, `..` is the root: `.env`, where lexically it would be `docs/.env`.
    expect(ok(resolveWorkspacePath(ws, 'docs/g/../.env')).relative).toBe('.env');
    expect(ok(resolveWorkspacePath(ws, 'docs/up/.env')).relative).toBe('.env');
    expect(ok(resolveWorkspacePath(ws, 'docs/env')).relative).toBe('.env');
    expect(ok(resolveWorkspacePath(ws, 'docs/g/config')).relative).toBe('.git/config');
  });

  it('lands outside for a link out of the workspace, with no relative form', () => {
    const r = ok(resolveWorkspacePath(ws, 'docs/out/secret'));
    expect(r.target).toBe(join(base, 'outside', 'secret'));
    expect(r.relative).toBeUndefined();
    // A dangling link is followed to where a write would create its target.
    const d = ok(resolveWorkspacePath(ws, 'docs/dangling'));
    expect(d).toMatchObject({ target: join(base, 'outside', 'new'), missing: 1 });
    expect(d.relative).toBeUndefined();
  });

  it('appends the missing rest, and records the folder a new file would be created in', () => {
    const r = ok(resolveWorkspacePath(ws, 'docs/new/x/file.md'));
    expect(r).toMatchObject({ relative: 'docs/new/x/file.md', missing: 3, anchorIsFolder: true });
    expect(r.anchor).toBe(identityOf(lstatSync(join(ws, 'docs'), { bigint: true })));
    // A link before the missing part is followed: the new file lands in the link's target.
    expect(ok(resolveWorkspacePath(ws, 'docs/g/hooks/pre-commit')).relative).toBe('.git/hooks/pre-commit');
  });

  it('refuses a `..` after a folder that does not exist (the red team: `docs/nope/../g/config`)', () => {
    for (const path of ['docs/nope/../g/config', 'docs/nope/../up/.env', 'nope/..', 'docs/nope/x/../..'])
      expect(resolveWorkspacePath(ws, path), path).toEqual({
        ok: false,
        reason: expect.stringMatching(/^goes through `(docs\/)?nope`, which does not exist/),
      });
    expect(resolveWorkspacePath(ws, 'docs/nope/../g/config')).toEqual({
      ok: false,
      reason: 'goes through `docs/nope`, which does not exist, and then `..`: write the path without `..`',
    });
  });

  it('refuses what the kernel fails: loops, a file used as a folder, NUL, over-long paths', () => {
    expect(resolveWorkspacePath(ws, 'loop1/x')).toEqual({
      ok: false,
      reason: 'has too many levels of symbolic links',
    });
    expect(resolveWorkspacePath(ws, 'docs/a.md/x')).toEqual({
      ok: false,
      reason: 'goes through `docs/a.md`, which is not a folder',
    });
    expect(resolveWorkspacePath(ws, 'docs/a.md/..').ok).toBe(false);
    expect(resolveWorkspacePath(ws, 'docs/env/').ok).toBe(false); // a link to a file, with a trailing slash
    expect(resolveWorkspacePath(ws, 'a\0b').ok).toBe(false);
    expect(resolveWorkspacePath(ws, 'a/'.repeat(3000)).ok).toBe(false);
    expect(resolveWorkspacePath(ws, '').ok).toBe(false);
    expect(resolveWorkspacePath(join(base, 'missing-ws'), 'x').ok).toBe(false);
  });

  it('follows at most MAX_LINKS links, as Linux does', () => {
    const chain = join(base, 'chain');
    mkdirSync(chain);
    writeFileSync(join(chain, 'end'), '');
    // link0 → link1 → … → link{n-1} → end: n links in one resolution.
    const make = (n: number, prefix: string) => {
      for (let i = 0; i < n; i++)
        symlinkSync(i === n - 1 ? 'end' : `${prefix}${i + 1}`, join(chain, `${prefix}${i}`));
    };
    make(MAX_LINKS, 'a');
    make(MAX_LINKS + 1, 'b');
    expect(ok(resolveWorkspacePath(chain, 'a0')).relative).toBe('end');
    expect(resolveWorkspacePath(chain, 'b0').ok).toBe(false);
    expect(() => closeSync(openSync(join(chain, 'a0'), 'r'))).not.toThrow();
    expect(() => openSync(join(chain, 'b0'), 'r')).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });

  it('walks from the real root: a workspace given through a link, and absolute paths through it', () => {
    const viaLink = join(base, 'ws-link');
    const r = ok(resolveWorkspacePath(viaLink, 'docs/a.md'));
    expect(r).toMatchObject({ realRoot: ws, root: viaLink, relative: 'docs/a.md' });
    expect(r.written).toBe(join(viaLink, 'docs', 'a.md'));
    expect(ok(resolveWorkspacePath(viaLink, join(viaLink, '.env'))).relative).toBe('.env');
    expect(ok(resolveWorkspacePath(ws, '/etc/../etc')).relative).toBeUndefined();
  });

  it('names paths relative to the workspace in its reasons, never the workspace location', () => {
    const r = resolveWorkspacePath(ws, 'docs/a.md/x');
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain(base);
  });
});

// ------------------------------------------------------------------------------------------- the kernel as oracle

/** What the kernel does with `path` (absolute): the file `open` reaches, or the error code. */
function kernelOpen(path: string): { target: string; identity: string } | { code: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? 'unknown' };
  }
  try {
    return {
      target: readlinkSync(`/proc/self/fd/${fd}`),
      identity: identityOf(fstatSync(fd, { bigint: true })),
    };
  } finally {
    closeSync(fd);
  }
}

/** Where `open(O_CREAT)` creates the file `path` names (removed again), or the error code. */
function kernelCreate(path: string): { target: string } | { code: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    // O_EXCL refuses a dangling link in last place; without it the kernel creates the link's target.
    if (code !== 'EEXIST') return { code };
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT);
    } catch (again) {
      return { code: (again as NodeJS.ErrnoException).code ?? 'unknown' };
    }
  }
  const target = readlinkSync(`/proc/self/fd/${fd}`);
  closeSync(fd);
  unlinkSync(target);
  return { target };
}

describe.runIf(PROC_FD)('resolveWorkspacePath agrees with the kernel on generated trees', () => {
  it('reaches the file open reaches, fails where open fails, and creates where O_CREAT creates', () => {
    let count = 0;
    fc.assert(
      fc.property(
        tree,
        fc.array(fc.tuple(relativePath, fc.boolean()), { minLength: 1, maxLength: 8 }),
        (entries, paths) => {
          // Deep enough that no relative link climbs out of the test's own folder.
          const root = join(base, 'gen', String(count++), 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7');
          const workspace = build(root, entries);
          for (const [written, absolute] of paths) {
            if (written === '' && !absolute) continue; // no path at all: refused before any walk
            // Joined as text: `join` would remove `..` lexically, which is what the kernel does not do.
            const path = absolute ? `${workspace}/${written}` : written;
            const full = path.startsWith('/') ? path : `${workspace}/${path}`;
            const ours = resolveWorkspacePath(workspace, path);
            const kernel = kernelOpen(full);
            const where = `${path} in ${JSON.stringify(entries)}`;
            if ('target' in kernel) {
              expect(ours, where).toMatchObject({ ok: true, target: kernel.target, missing: 0 });
              expect((ours as { anchor: string }).anchor, where).toBe(kernel.identity);
              continue;
            }
            if (!ours.ok) {
              // Refused: only where the kernel fails too.
              if (/too many levels/.test(ours.reason)) expect(kernel.code, where).toBe('ELOOP');
              else if (/not a folder/.test(ours.reason)) expect(kernel.code, where).toBe('ENOTDIR');
              else if (/does not exist, and then/.test(ours.reason))
                expect(kernel.code, where).toBe('ENOENT');
              else throw new Error(`unexpected refusal of ${where}: ${ours.reason}`);
              continue;
            }
            // Resolved, but open failed: the path does not exist (yet).
            expect(kernel.code, where).toBe('ENOENT');
            expect(ours.missing, where).toBeGreaterThan(0);
            let existing = ours.target;
            for (let i = 0; i < ours.missing; i++) existing = dirname(existing);
            const stats = lstatSync(existing, { bigint: true });
            expect(stats.isDirectory(), where).toBe(true);
            expect(ours.anchor, where).toBe(identityOf(stats));
            // One missing name in last place: the kernel creates exactly the resolved target.
            // One missing name in last place: the kernel creates exactly the resolved target. A path that names
            // a folder (`new/`, a link to `new/.`) cannot be created as a file.
            if (ours.missing === 1 && ours.target.startsWith(root)) {
              const created = kernelCreate(full);
              if (ours.namesFolder) expect(created, where).toHaveProperty('code');
              else expect(created, where).toEqual({ target: ours.target });
            }
          }
          rmSync(root, { recursive: true, force: true });
        },
      ),
      { numRuns: 300 },
    );
  });
});
