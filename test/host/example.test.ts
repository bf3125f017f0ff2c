/**
 * Runs examples/scripted-session.mjs as a real child process on a fresh build of src/host and checks that its
 * session.jsonl tells the story: every call answered, the approval asked and decided, the files changed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyDist } from '../dist-copy.js';

let hostModule = '';
beforeAll(() => {
  hostModule = join(copyDist(), 'host', 'index.js');
}, 120_000);
afterAll(() => rmSync(join(dirname(hostModule), '../..'), { recursive: true, force: true }));

describe('examples/scripted-session.mjs', () => {
  it('runs a full scripted session and prints where its session.jsonl is', () => {
    const script = resolve(import.meta.dirname, '../../examples/scripted-session.mjs');
    const output = execFileSync(process.execPath, [script], {
      env: { ...process.env, DSH_HOST_MODULE: hostModule },
    }).toString();
    const file = /session log: (.*\.jsonl)$/m.exec(output)?.[1];
    expect(file).toBeDefined();
    expect(output).toContain('turn ended: done');
    const events = readFileSync(file!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const types = events.map((event: { type: string }) => event.type);
    expect(types[0]).toBe('turn/start');
    expect(types.at(-1)).toBe('turn/end');
    expect(types.filter((type: string) => type === 'tool/call')).toHaveLength(8);
    expect(types.filter((type: string) => type === 'tool/result')).toHaveLength(8);
    expect(
      events.filter(
        (event: { type: string; data: { isError: boolean } }) =>
          event.type === 'tool/result' && event.data.isError,
      ),
    ).toEqual([]);
    expect(types.indexOf('approval/asked')).toBeLessThan(types.indexOf('approval/decided'));
    expect(types.filter((type: string) => type === 'todo/write')).toHaveLength(2);
    const workspace = dirname(dirname(dirname(file!)));
    expect(readFileSync(join(workspace, 'README.md'), 'utf8')).toContain('Status: final');
    expect(readFileSync(join(workspace, 'NOTES.md'), 'utf8')).toBe('README marked final.\n');
  });
});
