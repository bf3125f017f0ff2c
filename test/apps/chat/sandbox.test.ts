/**
 * The OS sandbox end to end: `dsh-mode chat` run as a child process, in plan, with a scripted model calling the
 * real `bash` tool, and the journal read back. Issue 27's findings through the product: `sort -S 1K
 * /dev/urandom` killed by its timeout leaves no file outside the workspace and nothing new in the host's `/tmp`
 * (the same call unsandboxed, in the default mode, does leave its spill: the test can fail); `sort` and `git log
 * -p` on large inputs work in the private `/tmp`; a fork loop and `sort /dev/zero` are ended by the limits and
 * leave no process. With a PATH that has no `bwrap`, plan denies `bash` with how to install it and nothing runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processesWith, scratch, token } from '../../host/sandbox/helpers.js';
import { BIN } from './plan-session.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A workspace (outside /tmp, so the host's /tmp can be watched apart from it) and a TMPDIR of its own. */
function project() {
  const dir = scratch('chat-');
  const tmp = scratch('tmpdir-');
  made.push(dir, tmp);
  return { dir, tmp };
}

interface Result {
  content: string;
  isError: boolean;
  data?: { rule?: { selector: string; file: string | null } };
}

/** One `chat --prompt` turn whose model calls `bash` once per command; the tool results from the journal. */
function chat(
  dir: string,
  calls: { command: string; timeout_ms?: number }[],
  options: { mode?: string; env?: NodeJS.ProcessEnv } = {},
): Result[] {
  writeFileSync(
    join(dir, 'script.json'),
    JSON.stringify([
      { text: 'Looking.', tool_calls: calls.map((args) => ({ name: 'bash', arguments: args })) },
      { text: 'Done.' },
    ]),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  delete env.DEEPSEEK_API_KEY;
  const run = spawnSync(
    process.execPath,
    [BIN, 'chat', '--model-script', 'script.json', '--mode', options.mode ?? 'plan', '--prompt', 'go'],
    { cwd: dir, encoding: 'utf8', env, timeout: 240_000 },
  );
  const id = /session (\S+)/.exec(run.stdout)?.[1];
  if (!id) throw new Error(`no session id:\n${run.stdout}\n${run.stderr}`);
  return readFileSync(join(dir, '.dsh/sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Result })
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data);
}

/** The host /tmp's entries that GNU sort's temporary files would have (`sortXXXXXX`). */
const sortSpill = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('sort')));

describe('chat in plan: the sandbox holds where the command list ends', () => {
  it('a killed `sort -S 1K /dev/urandom` leaves nothing outside the workspace nor in the host /tmp', () => {
    const { dir, tmp } = project();
    const before = sortSpill();
    const [result] = chat(dir, [{ command: 'sort -S 1K /dev/urandom', timeout_ms: 3_000 }], {
      env: { TMPDIR: tmp },
    });
    expect(result!.isError).toBe(true);
    // It ends by its timeout, or earlier when the private /tmp is full (its size limit): either way, killed or not,
    // the spill is discarded with the call.
    expect(result!.content).toMatch(
      /(\[timed out after 3000 ms; the command and every process it started were killed|No space left on device\n\n\[exit code 2); read-only sandbox\]$/,
    );
    expect(readdirSync(tmp)).toEqual([]);
    expect([...sortSpill()].filter((name) => !before.has(name))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['.dsh', 'script.json']);
  }, 240_000);

  it('the same call in the default mode, unsandboxed, leaves its spill behind (what plan prevents)', () => {
    const { dir, tmp } = project();
    chat(dir, [{ command: 'sort -S 1K /dev/urandom', timeout_ms: 1_000 }], {
      mode: 'default',
      env: { TMPDIR: tmp },
    });
    expect(readdirSync(tmp).length).toBeGreaterThan(0);
  }, 240_000);

  it('sort and git log -p work on large inputs', () => {
    const { dir } = project();
    // About 6 MB of distinct lines: with a 1 KiB buffer sort spills hundreds of files into the private /tmp.
    const lines = Array.from(
      { length: 200_000 },
      (_, i) => `line ${String(i).padStart(6, '0')} ${randomBytes(8).toString('hex')}`,
    );
    writeFileSync(join(dir, 'big.txt'), lines.join('\n') + '\n');
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
        stdio: 'pipe',
      });
    git('init', '-q');
    git('add', 'big.txt');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'big');
    const [sorted, log] = chat(dir, [
      { command: 'sort -S 1K -r big.txt | head -n 1', timeout_ms: 180_000 },
      { command: 'git log -p | tail -n 1', timeout_ms: 180_000 },
    ]);
    expect(sorted).toMatchObject({ isError: false });
    expect(sorted!.content).toBe(`${[...lines].sort().at(-1)}\n\n[exit code 0; read-only sandbox]`);
    expect(log).toMatchObject({ isError: false });
    expect(log!.content).toBe(`+${lines.at(-1)}\n\n[exit code 0; read-only sandbox]`);
  }, 240_000);

  it('a fork loop is held by the process limit and leaves no process', () => {
    const { dir } = project();
    const mark = `held-${token()}.txt`;
    writeFileSync(join(dir, mark), 'x\n');
    const [result] = chat(dir, [
      { command: `while ls >/dev/null; do tail -f ${mark} >/dev/null & done`, timeout_ms: 5_000 },
    ]);
    expect(result!.content).toContain('Resource temporarily unavailable');
    expect(result!.content).toMatch(/read-only sandbox\]$/);
    expect(processesWith(mark)).toEqual([]);
  }, 240_000);

  it('`sort /dev/zero` ends on the memory limit, not the timeout', () => {
    const { dir } = project();
    const [result] = chat(dir, [{ command: 'sort /dev/zero', timeout_ms: 120_000 }]);
    expect(result!.content).toMatch(/sort: memory exhausted\n\n\[exit code 2; read-only sandbox\]$/);
  }, 240_000);
});

describe('chat in plan where no sandbox can start', () => {
  it('denies bash with how to install bubblewrap', () => {
    const { dir } = project();
    // A PATH with node and what a command would need, but no bwrap.
    const bin = mkdtempSync(join(scratch('path-'), 'bin-'));
    made.push(bin);
    for (const program of ['node', 'bash', 'sh', 'ls', 'git'])
      symlinkSync(execFileSync('which', [program], { encoding: 'utf8' }).trim(), join(bin, program));
    mkdirSync(join(dir, 'sub'));
    const [result] = chat(dir, [{ command: 'ls sub' }], { env: { PATH: bin } });
    expect(result!.isError).toBe(true);
    expect(result!.content).toMatch(
      /^Error: tool "bash" must run in a read-only OS sandbox in this mode \(`sandbox: read-only` at .*plan\.yaml:\d+:1\), and none can start on this machine, so it was denied and nothing ran: bubblewrap \(`bwrap`\) is not on the PATH; Install bubblewrap/,
    );
    expect(result!.data?.rule?.selector).toBe('sandbox');
  }, 240_000);
});
