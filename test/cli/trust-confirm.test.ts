/**
 * `dsh-mode trust` in a terminal: the start notices of the file (here "plan mode is replaced") come first, then a
 * question, and the file is recorded only after `y`. The binary runs on a real pseudo-terminal made by `script`
 * (util-linux); the test answers only once the question is on screen, after checking that nothing was recorded
 * yet. Without a terminal nothing is asked (the notices come with the result), and `--yes` does not ask.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dshMode, makeTree, ROOT } from './run.js';

const BIN = join(ROOT, 'bin/dsh-mode.mjs');
const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

const WIDER_PLAN =
  '- name: host\n- name: mode\n  config:\n    modes:\n      plan:\n        override: true\n        tools: { write: allow }\n- name: demo\n';

/**
 * Runs `dsh-mode trust ARGS` on a pseudo-terminal; when the question shows, calls `atQuestion` and types `answer`.
 * @returns the terminal's output (with `\r\n` line ends) and the exit code
 */
function onTerminal(
  dir: string,
  args: string,
  answer: string,
  atQuestion: () => void = () => {},
): Promise<{ output: string; code: number | null; asked: boolean }> {
  const command = `'${process.execPath}' '${BIN}' trust ${args}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    env: { ...process.env, DSH_MODE_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1', TERM: 'dumb' },
  });
  let output = '';
  let asked = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (!asked && output.includes('[y/N]')) {
      asked = true;
      atQuestion();
      child.stdin.write(answer);
    }
  });
  return new Promise((settle) => child.on('close', (code) => settle({ output, code, asked })));
}

describe.skipIf(!HAS_SCRIPT)('trust in a terminal', () => {
  it('shows the notices, then asks; `n` records nothing', async () => {
    const dir = makeTree({ 'cordis.yml': WIDER_PLAN });
    const run = await onTerminal(dir, '', 'n\r');
    expect(run.asked).toBe(true);
    const notice = run.output.indexOf(
      'dsh-mode: notice: plan mode is replaced by an `override: true` document',
    );
    const question = run.output.indexOf(`trust ${join(dir, 'cordis.yml')}? [y/N]`);
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(question).toBeGreaterThan(notice);
    expect(run.output).toContain('not trusted: nothing was recorded');
    expect(run.code).toBe(1);
    expect(existsSync(join(dir, 'config/trusted.json'))).toBe(false);
  });

  it('records only after `y`', async () => {
    const dir = makeTree({ 'cordis.yml': WIDER_PLAN });
    let recordedBeforeAnswer: boolean | undefined;
    const run = await onTerminal(dir, '', 'y\r', () => {
      recordedBeforeAnswer = existsSync(join(dir, 'config/trusted.json'));
    });
    expect(recordedBeforeAnswer).toBe(false);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`trusted ${join(dir, 'cordis.yml')}`);
    expect(readFileSync(join(dir, 'config/trusted.json'), 'utf8')).toContain(join(dir, 'cordis.yml'));
  });

  it('--yes records without asking', async () => {
    const dir = makeTree({ 'cordis.yml': WIDER_PLAN });
    const run = await onTerminal(dir, '--yes', 'n\r');
    expect(run.asked).toBe(false);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('dsh-mode: notice: plan mode is replaced');
    expect(existsSync(join(dir, 'config/trusted.json'))).toBe(true);
  });
});

describe('trust without a terminal', () => {
  it('asks nothing: it records, and the notices come on stderr', () => {
    const dir = makeTree({ 'cordis.yml': WIDER_PLAN });
    const run = dshMode(['trust'], dir, { DSH_MODE_CONFIG_DIR: join(dir, 'config') });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^trusted /);
    expect(run.stderr).toContain('dsh-mode: notice: plan mode is replaced');
    expect(run.stderr).not.toContain('[y/N]');
    expect(existsSync(join(dir, 'config/trusted.json'))).toBe(true);
  });
});
