/**
 * The git object reader the command line gives `git:REV:path` sources: `git cat-file` and `git ls-tree` child
 * processes (no shell, arguments as an array), so the working tree is never touched. Every failure (not a
 * repository, an unknown revision, a missing path, git not installed) is an answer, never a throw; the policy
 * rules (which files, how large, which encoding) are the compiler's (`../compile/source.ts`).
 * @module
 */
import { execFile } from 'node:child_process';
import { MAX_POLICY_BYTES, type GitAnswer, type GitObjects } from '../compile/index.js';

/**
 * A reader of the repository that holds `cwd`.
 * @param cwd the folder git runs in (source paths are relative to it)
 * @returns the reader
 */
export function gitObjects(cwd: string): GitObjects {
  const text = async (args: string[]): Promise<GitAnswer<string>> => {
    const run = await git(args, cwd);
    return run.ok ? { ok: true, value: run.value.toString('utf8').trim() } : run;
  };
  return {
    type: (object) => text(['cat-file', '-t', object]),
    async size(object) {
      const answer = await text(['cat-file', '-s', object]);
      return answer.ok ? { ok: true, value: Number(answer.value) } : answer;
    },
    read: (object) => git(['cat-file', 'blob', object], cwd),
    async list(object) {
      const run = await git(['ls-tree', '-z', object], cwd);
      if (!run.ok) return run;
      const names = run.value
        .toString('utf8')
        .split('\0')
        .map((line) => /^\d+ blob [0-9a-f]+\t(.*)$/s.exec(line)?.[1])
        .filter((name): name is string => name !== undefined);
      return { ok: true, value: names };
    },
  };
}

/** Runs git without a shell; the error is git's first stderr line, lowercased, or why git could not start. */
function git(args: readonly string[], cwd: string): Promise<GitAnswer<Buffer>> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.quotePath=false', ...args],
      { cwd, encoding: 'buffer', maxBuffer: MAX_POLICY_BYTES * 4, windowsHide: true },
      (error, bytes, errBytes) => {
        if (!error) return resolve({ ok: true, value: bytes });
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          return resolve({ ok: false, error: 'git is not installed' });
        }
        const stderr = errBytes.toString('utf8');
        const line = (stderr.split('\n').find((l) => l.trim() !== '') ?? error.message).replace(
          /^fatal: /,
          '',
        );
        resolve({ ok: false, error: line.charAt(0).toLowerCase() + line.slice(1) });
      },
    );
  });
}
