/**
 * Policy sources: a folder on disk and the same folder in a git revision follow one set of rules (which files,
 * the 1 MiB limit, strict UTF-8), checked with a real repository and the command line's real git reader.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitObjects } from '../../../src/cli/git-objects.js';
import { loadPolicySources } from '../../../src/compile/language/load.js';
import { MAX_POLICY_BYTES, parseGitSpec } from '../../../src/compile/language/source.js';

function repo(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-source-'));
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'test');
  git('add', '.');
  git('commit', '-qm', 'policies');
  return dir;
}

const FILES = {
  'pol/a.yaml': 'mode: alpha\ndefault: allow\n',
  'pol/B.YML': 'mode: beta\ndefault: allow\n',
  'pol/c.json': '{"mode": "gamma", "default": "allow"}',
  'pol/notes.txt': 'not a policy',
  'pol/sub/d.yaml': 'mode: delta\ndefault: allow\n',
  'pol/huge.yaml': `mode: huge\n#${'x'.repeat(MAX_POLICY_BYTES)}\n`,
  'pol/latin1.yaml': Buffer.from([0x6d, 0x6f, 0x64, 0x65, 0x3a, 0x20, 0xe9, 0x0a]),
};

describe('policy sources on disk and in git', () => {
  it('read the same files and refuse the same ones with the same diagnostics', async () => {
    const dir = repo(FILES);
    const disk = await loadPolicySources(['pol'], { builtin: false, cwd: dir });
    const git = await loadPolicySources(['git:HEAD:pol'], { builtin: false, cwd: dir, git: gitObjects(dir) });
    expect(disk.files).toEqual(['pol/B.YML', 'pol/a.yaml', 'pol/c.json', 'pol/huge.yaml', 'pol/latin1.yaml']);
    expect(git.files).toEqual(disk.files.map((f) => `git:HEAD:${f}`));
    expect(git.documents.map((d) => d.document.mode)).toEqual(['beta', 'alpha', 'gamma']);
    expect(disk.documents.map((d) => d.document.mode)).toEqual(['beta', 'alpha', 'gamma']);
    const start = { line: 1, column: 1 };
    const expected = (prefix: string) => [
      {
        code: 'too-large',
        severity: 'error',
        message: `policy is ${MAX_POLICY_BYTES + 13} bytes: the limit is ${MAX_POLICY_BYTES} bytes (1 MiB)`,
        file: `${prefix}pol/huge.yaml`,
        path: [],
        range: { start, end: start },
        help: 'split the policy into several files of the same mode',
      },
      {
        code: 'syntax',
        severity: 'error',
        message: 'policy is not valid UTF-8 text',
        file: `${prefix}pol/latin1.yaml`,
        path: [],
        range: { start, end: start },
      },
    ];
    expect(disk.diagnostics).toEqual(expected(''));
    expect(git.diagnostics).toEqual(expected('git:HEAD:'));
  });

  it('load one real file once however it is named, and report a refused one once', async () => {
    const dir = repo(FILES);
    const load = await loadPolicySources(['pol/huge.yaml', './pol/huge.yaml', 'pol', 'pol/a.yaml'], {
      builtin: false,
      cwd: dir,
    });
    expect(load.files).toEqual(['pol/huge.yaml', 'pol/B.YML', 'pol/a.yaml', 'pol/c.json', 'pol/latin1.yaml']);
    expect(load.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['too-large', 'pol/huge.yaml'],
      ['syntax', 'pol/latin1.yaml'],
    ]);
  });

  it('name what git cannot read, and treat `git:` as a path without a git reader', async () => {
    const dir = repo(FILES);
    const bad = await loadPolicySources(['git:no-such-rev:pol'], {
      builtin: false,
      cwd: dir,
      git: gitObjects(dir),
    });
    expect(bad.diagnostics).toEqual([
      {
        code: 'io',
        severity: 'error',
        message: expect.stringMatching(/^cannot read `git:no-such-rev:pol`: /),
        file: 'git:no-such-rev:pol',
        path: [],
      },
    ]);
    const plain = await loadPolicySources(['git:HEAD:pol'], { builtin: false, cwd: dir });
    expect(plain.diagnostics).toEqual([
      {
        code: 'io',
        severity: 'error',
        message: 'cannot read `git:HEAD:pol`: no such file or folder',
        file: 'git:HEAD:pol',
        path: [],
      },
    ]);
    expect(parseGitSpec('git:HEAD:pol/')).toEqual({ rev: 'HEAD', path: 'pol' });
  });
});
