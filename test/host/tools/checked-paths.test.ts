/**
 * The file tools open exactly the path they were handed resolved (`ToolContext.paths`, as the gate hands it), never
 * following a link, and refuse when it changed since it was resolved; without one they resolve the path
 * themselves, the same way. Real tools, real files and real symlinks in temp folders.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveWorkspacePath, type ResolvedWorkspacePath } from '../../../src/files/resolve-path.js';
import { editTool, grepTool, listTool, readTool, writeTool } from '../../../src/host/tools/index.js';
import type { Tool, ToolContext, ToolResult } from '../../../src/host/index.js';
import { tempDir } from '../setup.js';

let ws: string;

beforeEach(() => {
  ws = join(tempDir('dsh-checked-'), 'ws');
  mkdirSync(join(ws, 'docs', 'sub'), { recursive: true });
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
  writeFileSync(join(ws, '.env'), 'KEY=secret\n');
  writeFileSync(join(ws, 'docs', 'a.md'), 'alpha\n');
  symlinkSync('../.git', join(ws, 'docs', 'g'));
  symlinkSync('..', join(ws, 'docs', 'up'));
  symlinkSync('sub', join(ws, 'docs', 'd'));
});

function resolved(path: string): ResolvedWorkspacePath {
  const r = resolveWorkspacePath(ws, path);
  if (!r.ok) throw new Error(r.reason);
  return r;
}

function context(paths?: Map<string, ResolvedWorkspacePath>): ToolContext {
  return {
    callId: 'c1',
    signal: new AbortController().signal,
    workspace: ws,
    ...(paths ? { paths } : {}),
  };
}

async function run<A>(
  tool: Tool<A>,
  args: A,
  paths?: Map<string, ResolvedWorkspacePath>,
): Promise<ToolResult> {
  try {
    return await tool.execute(args, context(paths));
  } catch (error) {
    return { content: `Error: ${(error as Error).message}`, isError: true };
  }
}

const GIT_CONFIG = '[core]\n';

describe('the file tools resolve as the kernel does', () => {
  it('refuse a `..` after a missing folder: nothing is written, nothing is read, no folder is made', async () => {
    const write = await run(writeTool, { path: 'docs/nope/../g/config', content: 'pwned' });
    expect(write).toMatchObject({ isError: true });
    expect(write.content).toContain('`docs/nope`, which does not exist, and then `..`');
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
    expect(existsSync(join(ws, 'docs', 'nope'))).toBe(false);
    for (const tool of [readTool, grepTool, listTool] as Tool<{ path: string; pattern?: string }>[]) {
      const result = await run(tool, { path: 'docs/nope/../up/.env', pattern: 'KEY' });
      expect(result.isError, tool.name).toBe(true);
      expect(result.content, tool.name).not.toContain('secret');
    }
    const edit = await run(editTool, { path: 'docs/nope/../g/config', old_string: 'core', new_string: 'x' });
    expect(edit.isError).toBe(true);
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });

  it('write where the link leads, `..` after a link included, not where the text points', async () => {
    // docs/d → docs/sub, so `docs/d/../x.md` is docs/x.md (lexically also docs/x.md).
    expect((await run(writeTool, { path: 'docs/d/../x.md', content: 'x' })).isError).toBeFalsy();
    expect(readFileSync(join(ws, 'docs', 'x.md'), 'utf8')).toBe('x');
    // docs/g → .git, so `docs/g/../docs/y.md` is docs/y.md; lexically it would be docs/docs/y.md.
    expect((await run(writeTool, { path: 'docs/g/../docs/y.md', content: 'y' })).content).toBe(
      'Wrote 1 bytes to docs/y.md',
    );
    expect(readFileSync(join(ws, 'docs', 'y.md'), 'utf8')).toBe('y');
    expect(existsSync(join(ws, 'docs', 'docs'))).toBe(false);
    // `docs/up/.env` reads the workspace's .env (the tools are confined, not policed: the gate polices).
    expect((await run(readTool, { path: 'docs/up/.env' })).content).toBe('KEY=secret\n');
  });

  it('write no file at a path that names a folder (`new/`), as the kernel creates none there', async () => {
    const result = await run(writeTool, { path: 'docs/new/', content: 'x' });
    expect(result.content).toBe('Error: `docs/new` is a folder');
    expect(existsSync(join(ws, 'docs', 'new'))).toBe(false);
  });

  it('create missing folders where the resolution says, under a link that stays inside', async () => {
    expect((await run(writeTool, { path: 'docs/d/new/deep/f.md', content: 'f' })).isError).toBeFalsy();
    expect(readFileSync(join(ws, 'docs', 'sub', 'new', 'deep', 'f.md'), 'utf8')).toBe('f');
  });
});

describe('the file tools open what was checked, or nothing', () => {
  it('open the resolution they are handed, not a fresh one', async () => {
    // Resolved while docs/a.md was itself; handed with the call's path as the key.
    const checked = resolved('docs/a.md');
    const paths = new Map([['docs/a.md', checked]]);
    expect((await run(readTool, { path: 'docs/a.md' }, paths)).content).toBe('alpha\n');
    // The same resolution under another key is not used for this path: the tool resolves `docs/up/.env` itself.
    const other = new Map([['docs/up/.env', resolved('docs/a.md')]]);
    expect((await run(readTool, { path: 'docs/up/.env' }, other)).content).toBe('alpha\n');
    // A resolution made against another workspace is refused, not replaced.
    const elsewhere = join(tempDir('dsh-other-'));
    writeFileSync(join(elsewhere, 'a.md'), 'other');
    const foreign = resolveWorkspacePath(elsewhere, 'a.md') as ResolvedWorkspacePath;
    const result = await run(readTool, { path: 'a.md' }, new Map([['a.md', foreign]]));
    expect(result.content).toBe('Error: `a.md` was checked against another workspace');
  });

  it('refuse a file replaced by a link since the check, and return nothing from its target', async () => {
    const checked = resolved('docs/a.md');
    rmSync(join(ws, 'docs', 'a.md'));
    symlinkSync('../.env', join(ws, 'docs', 'a.md'));
    const result = await run(readTool, { path: 'docs/a.md' }, new Map([['docs/a.md', checked]]));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/changed since it was checked/);
    expect(result.content).not.toContain('secret');
  });

  it('refuse a folder swapped for a link since the check: nothing is written through it', async () => {
    const checked = resolved('docs/sub/new.md');
    renameSync(join(ws, 'docs', 'sub'), join(ws, 'docs', 'sub-old'));
    symlinkSync('../.git', join(ws, 'docs', 'sub'));
    const paths = new Map([['docs/sub/new.md', checked]]);
    const result = await run(writeTool, { path: 'docs/sub/new.md', content: 'x' }, paths);
    expect(result.content).toMatch(/changed since it was checked/);
    expect(existsSync(join(ws, '.git', 'new.md'))).toBe(false);
  });

  it('refuse a file or folder that is another one now (renamed over), with no link anywhere', async () => {
    const file = resolved('docs/a.md');
    renameSync(join(ws, '.git', 'config'), join(ws, 'docs', 'a.md'));
    const edit = await run(
      editTool,
      { path: 'docs/a.md', old_string: 'core', new_string: 'x' },
      new Map([['docs/a.md', file]]),
    );
    expect(edit.content).toMatch(/changed since it was checked \(it is another file now\)/);
    expect(readFileSync(join(ws, 'docs', 'a.md'), 'utf8')).toBe(GIT_CONFIG);
    const folder = resolved('docs/sub/n.md');
    renameSync(join(ws, 'docs', 'sub'), join(ws, 'docs', 'sub-old'));
    mkdirSync(join(ws, 'docs', 'sub'));
    const write = await run(
      writeTool,
      { path: 'docs/sub/n.md', content: 'n' },
      new Map([['docs/sub/n.md', folder]]),
    );
    expect(write.content).toMatch(/changed since it was checked/);
    expect(existsSync(join(ws, 'docs', 'sub', 'n.md'))).toBe(false);
  });

  it('refuse a listing or a search of a folder replaced since the check', async () => {
    const checked = resolved('docs/sub');
    writeFileSync(join(ws, 'docs', 'sub', 'k.md'), 'KEY here');
    renameSync(join(ws, 'docs', 'sub'), join(ws, 'docs', 'sub-old'));
    symlinkSync('../.git', join(ws, 'docs', 'sub'));
    const paths = new Map([['docs/sub', checked]]);
    expect((await run(listTool, { path: 'docs/sub' }, paths)).content).toMatch(
      /changed since it was checked/,
    );
    const grep = await run(grepTool, { pattern: 'core', path: 'docs/sub' }, paths);
    expect(grep.content).toMatch(/changed since it was checked/);
  });

  it('accept a missing folder or file that appeared since the check, at the checked place', async () => {
    const checked = resolved('docs/fresh/f.md');
    mkdirSync(join(ws, 'docs', 'fresh'));
    writeFileSync(join(ws, 'docs', 'fresh', 'f.md'), 'old');
    const paths = new Map([['docs/fresh/f.md', checked]]);
    expect((await run(writeTool, { path: 'docs/fresh/f.md', content: 'new' }, paths)).isError).toBeFalsy();
    expect(readFileSync(join(ws, 'docs', 'fresh', 'f.md'), 'utf8')).toBe('new');
  });

  it('but not a link that appeared in the missing part since the check', async () => {
    const checked = resolved('docs/fresh/config');
    symlinkSync('../.git', join(ws, 'docs', 'fresh'));
    const paths = new Map([['docs/fresh/config', checked]]);
    const result = await run(writeTool, { path: 'docs/fresh/config', content: 'pwned' }, paths);
    expect(result.isError).toBe(true);
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });
});
