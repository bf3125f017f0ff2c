/**
 * The built-in tools on real files in a temporary workspace, called through the real tool runtime: what each
 * does, and the escapes each file tool refuses (`..`, absolute paths outside, symbolic links that leave).
 * bash runs real child processes, including a grandchild that must die with its process group.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/host/index.js';
import { setup, tempDir } from './setup.js';

async function workspace() {
  const base = await setup();
  writeFileSync(join(base.workspace, 'README.md'), 'line one\nline two\nline three\n');
  mkdirSync(join(base.workspace, 'src'));
  writeFileSync(join(base.workspace, 'src', 'a.ts'), 'export const a = 1;\nexport const b = 2;\n');
  mkdirSync(join(base.workspace, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(base.workspace, 'node_modules', 'dep', 'x.js'), 'export const a = 1;\n');
  const outside = tempDir('dsh-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'secret a\n');
  symlinkSync(outside, join(base.workspace, 'link'));
  symlinkSync(join(outside, 'secret.txt'), join(base.workspace, 'secret-link.txt'));
  let n = 0;
  const call = (name: string, args: unknown) =>
    base.ctx.tools.execute({ callId: `c${++n}`, name, arguments: args });
  return { ...base, outside, call };
}

const escapes = (outside: string) => [
  '../x',
  join(outside, 'secret.txt'),
  'link/secret.txt',
  'secret-link.txt',
  'src/../../x',
];

describe('read', () => {
  it('returns the file, or a window of lines', async () => {
    const { call } = await workspace();
    expect(await call('read', { path: 'README.md' })).toEqual({
      content: 'line one\nline two\nline three\n',
    });
    expect(await call('read', { path: 'README.md', offset: 2, limit: 1 })).toEqual({ content: 'line two' });
    expect(await call('read', { path: 'missing.txt' })).toEqual({
      content: 'Error: `missing.txt` does not exist',
      isError: true,
    });
    expect((await call('read', { path: 'src' })).content).toMatch(/is a directory/);
  });

  it('refuses paths that leave the workspace', async () => {
    const { call, outside } = await workspace();
    for (const path of escapes(outside)) {
      const result = await call('read', { path });
      expect(result.isError, path).toBe(true);
      expect(result.content).toMatch(/outside the workspace|leaves the workspace through a symbolic link/);
    }
  });
});

describe('list', () => {
  it('lists a folder sorted, folders marked', async () => {
    const { call } = await workspace();
    expect((await call('list', {})).content).toBe(
      ['README.md', 'link@', 'node_modules/', 'secret-link.txt@', 'src/'].join('\n'),
    );
    expect((await call('list', { path: 'link' })).content).toMatch(/symbolic link/);
    expect((await call('list', { path: '..' })).content).toMatch(/outside the workspace/);
  });
});

describe('grep', () => {
  it('finds matches as path:line, skipping node_modules and not following links', async () => {
    const { call } = await workspace();
    expect((await call('grep', { pattern: 'const a' })).content).toBe('src/a.ts:1: export const a = 1;');
    expect((await call('grep', { pattern: 'LINE T', ignoreCase: true })).content).toBe(
      'README.md:2: line two\nREADME.md:3: line three',
    );
    expect((await call('grep', { pattern: 'secret' })).content).toBe('No matches.');
    expect((await call('grep', { pattern: '(' })).content).toMatch(/invalid regular expression/);
    expect((await call('grep', { pattern: 'a', path: '../' })).content).toMatch(/outside the workspace/);
  });
});

describe('write', () => {
  it('creates files and folders inside, refuses outside', async () => {
    const { call, workspace: root, outside } = await workspace();
    expect(await call('write', { path: 'new/deep/file.txt', content: 'hi' })).toEqual({
      content: 'Wrote 2 bytes to new/deep/file.txt',
    });
    expect(readFileSync(join(root, 'new/deep/file.txt'), 'utf8')).toBe('hi');
    for (const path of [...escapes(outside), 'link/new.txt']) {
      expect((await call('write', { path, content: 'x' })).isError, path).toBe(true);
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret a\n');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });
});

describe('edit', () => {
  it('replaces one exact unique occurrence', async () => {
    const { call, workspace: root } = await workspace();
    expect(await call('edit', { path: 'src/a.ts', old_string: 'b = 2', new_string: 'b = 3' })).toEqual({
      content: 'Edited src/a.ts',
    });
    expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toContain('b = 3');
  });

  it('refuses a missing or ambiguous string, and escapes', async () => {
    const { call, outside } = await workspace();
    expect((await call('edit', { path: 'src/a.ts', old_string: 'zzz', new_string: '' })).content).toMatch(
      /not found/,
    );
    expect((await call('edit', { path: 'src/a.ts', old_string: 'export', new_string: 'x' })).content).toMatch(
      /occurs 2 times/,
    );
    expect(
      (await call('edit', { path: 'secret-link.txt', old_string: 'secret', new_string: 'x' })).isError,
    ).toBe(true);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret a\n');
  });
});

/**
 * Waits until no live process has `token` in its command line (the `bash -c` of a call, and its forked subshells,
 * carry the whole command), so nothing of that command can still act. Polls `ps`; the cap only turns a hang into a
 * failure.
 */
async function processesGone(token: string): Promise<void> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
    // `-ww`: whole command lines, never cut at the terminal's width.
    const table = execFileSync('ps', ['-A', '-ww', '-o', 'args='], { encoding: 'utf8' });
    if (!table.includes(token)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`processes of ${token} still run after 20 s`);
}

describe('bash', () => {
  it('runs in the workspace and reports the exit code', async () => {
    const { call } = await workspace();
    expect(await call('bash', { command: 'cat README.md | wc -l' })).toEqual({
      content: '3\n\n[exit code 0]',
    });
    expect(await call('bash', { command: 'echo oops >&2; exit 3' })).toEqual({
      content: 'oops\n\n[exit code 3]',
      isError: true,
    });
  });

  it('runs bash without startup files, BASH_ENV or exported functions, and without optional git locks', async () => {
    const { call, workspace: root } = await workspace();
    const marker = join(root, 'startup-ran');
    writeFileSync(join(root, 'startup.sh'), `touch ${marker}\n`);
    const saved = { ...process.env };
    // What a user's environment may hold: a startup file for non-interactive bash, and an exported function
    // that would shadow `ls` (bash imports `BASH_FUNC_ls%%` as the function `ls`).
    process.env.BASH_ENV = join(root, 'startup.sh');
    process.env.ENV = join(root, 'startup.sh');
    process.env['BASH_FUNC_ls%%'] = '() { echo shadowed; }';
    try {
      const result = await call('bash', {
        command: 'ls README.md; echo "[$BASH_ENV|$ENV|$GIT_OPTIONAL_LOCKS]"',
      });
      expect(result.content).toBe('README.md\n[||0]\n\n[exit code 0]');
    } finally {
      for (const name of ['BASH_ENV', 'ENV', 'BASH_FUNC_ls%%']) delete process.env[name];
      Object.assign(process.env, saved);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('caps the output', async () => {
    const { call } = await workspace();
    const result = await call('bash', { command: 'head -c 200000 /dev/zero | tr "\\0" a' });
    expect(result.content).toMatch(/\[output truncated at 65536 characters\]/);
    expect(result.content.length).toBeLessThan(66000);
  });

  it('kills the whole process group on timeout and on cancel', async () => {
    const { ctx, workspace: root } = await workspace();
    const marker = join(root, 'grandchild-alive');
    // A grandchild that would write the marker later, unless its process group is killed.
    const command = `(sleep 1.5; touch ${marker}) & sleep 30`;
    const timed = await ctx.tools.execute({
      callId: 't',
      name: 'bash',
      arguments: { command, timeout_ms: 200 },
    });
    expect(timed.isError).toBe(true);
    expect(timed.content).toMatch(/timed out after 200 ms; .*killed/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const cancelled = await ctx.tools.execute({
      callId: 'c',
      name: 'bash',
      arguments: { command },
      signal: controller.signal,
    });
    expect(cancelled.content).toMatch(/cancelled; .*killed/);
    await processesGone(marker);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('todo_write', () => {
  it('appends todo/write with the whole list', async () => {
    const { ctx } = await workspace();
    const session = ctx.sessions.create({ inMemory: true });
    const agent = ctx.agents.create({ session, model: scriptedModel([]) });
    await session.append('turn/start', { turn: 1 });
    const todos = [
      { content: 'read', status: 'completed' },
      { content: 'write', status: 'pending' },
    ];
    const result = await ctx.tools.execute({ callId: 'c', name: 'todo_write', arguments: { todos }, agent });
    expect(result).toEqual({ content: 'Todo list updated: 2 items, 1 completed' });
    expect(session.events.at(-1)).toMatchObject({ type: 'todo/write', data: { todos } });
  });

  it('is an error without an agent, and for a bad status', async () => {
    const { call } = await workspace();
    expect((await call('todo_write', { todos: [] })).content).toMatch(/needs an agent/);
    expect((await call('todo_write', { todos: [{ content: 'x', status: 'done' }] })).content).toMatch(
      /must be equal to one of the allowed values/,
    );
  });
});
