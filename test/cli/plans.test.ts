/**
 * `dsh-mode plans` over real journals written by real scripted chat sessions in one workspace (an edited plan
 * approved, a plan rejected, one whose question was cancelled), plus copies of those logs cut or damaged as a
 * crash or a hand edit would leave them. The binary runs as a child process; the logs must come out untouched.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dshMode, ROOT } from './run.js';
import { runCli } from './run-in-process.js';
import { BIN, EDITED, FINAL, PLAN, planChat, planProject, sha256 } from '../apps/chat/plan-session.js';

let dir: string;
let approved: string;
let rejected: string;
let cancelled: string;
const sessions = (): string => join(dir, '.dsh/sessions');

beforeAll(() => {
  const project = planProject([{ kind: 'write', text: EDITED }]);
  dir = project.dir;
  approved = planChat(dir, 'e\ny\n', { EDITOR: project.editor }).id;
  rejected = planChat(dir, 'not yet\n', { EDITOR: project.editor }).id;
  cancelled = planChat(dir, '', { EDITOR: project.editor }).id;
});

/** The bytes and modification times of every file under .dsh/sessions. */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(sessions()).sort()) {
    const file = join(sessions(), name);
    out.set(name, `${statSync(file).mtimeMs} ${readFileSync(file).toString('base64')}`);
  }
  return out;
}

describe('dsh-mode plans over real session logs', () => {
  it('lists every plan with its time, reference, outcome, edit, hash and title, and changes no log', () => {
    const before = snapshot();
    const run = dshMode(['plans'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^TIME +PLAN +OUTCOME +EDITED +HASH +TITLE$/);
    expect(rows).toHaveLength(3);
    const cells = rows.map((row) => row.split(/ {2,}/));
    expect(cells.map((c) => c[1])).toEqual([`${approved}:1`, `${rejected}:1`, `${cancelled}:1`]);
    expect(cells[0]).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      `${approved}:1`,
      'approved',
      'edited',
      sha256(FINAL).slice(0, 12),
      'Add a greeting',
    ]);
    expect(cells[1]!.slice(1)).toEqual([
      `${rejected}:1`,
      'rejected',
      sha256(PLAN).slice(0, 12),
      'Add a greeting',
    ]);
    expect(cells[2]!.slice(1)).toEqual([
      `${cancelled}:1`,
      'cancelled',
      sha256(PLAN).slice(0, 12),
      'Add a greeting',
    ]);
    expect(snapshot()).toEqual(before);
  });

  it('--session narrows the list, --workspace reads another folder, --format json carries the text', async () => {
    const one = await runCli(['plans', '--session', rejected], { cwd: dir });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(one.stdout).toContain(`${rejected}:1  rejected`);

    const elsewhere = await runCli(['plans', '--workspace', dir, '--format', 'json'], { cwd: '/' });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    const { plans } = JSON.parse(elsewhere.stdout) as { plans: Record<string, unknown>[] };
    expect(plans[0]).toMatchObject({
      ref: `${approved}:1`,
      outcome: 'approved',
      edited: true,
      sha256: sha256(FINAL),
      title: 'Add a greeting',
      plan: FINAL,
    });
    expect(plans[1]).toMatchObject({ outcome: 'rejected', feedback: 'not yet', edited: false, plan: PLAN });
  });

  it('show prints the approved (edited) text by hash prefix or SESSION:N, and --out writes it exactly', async () => {
    const byHash = await runCli(['plans', 'show', sha256(FINAL).slice(0, 6)], { cwd: dir });
    expect(byHash.code, byHash.stderr).toBe(0);
    expect(byHash.stdout).toBe(`${FINAL}\n`);
    // Two plans share the model's text: the prefix names one text, so it is printed.
    const shared = await runCli(['plans', 'show', sha256(PLAN).slice(0, 8).toUpperCase()], { cwd: dir });
    expect(shared.code, shared.stderr).toBe(0);
    expect(shared.stdout).toBe(`${PLAN}\n`);

    const out = await runCli(['plans', 'show', `${approved}:1`, '--out', 'approved.md'], { cwd: dir });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe(`wrote plan ${sha256(FINAL).slice(0, 12)} (Add a greeting) to approved.md\n`);
    expect(readFileSync(join(dir, 'approved.md'), 'utf8')).toBe(`${FINAL}\n`);
  });

  it('a bad REF is a usage error (exit 2) that says what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['plans', 'show', 'zz'],
        /^error: `zz` is not a plan reference: give a hash prefix of at least 4 hex digits or SESSION:N\n$/,
      ],
      [['plans', 'show', 'abc'], /is not a plan reference/],
      [
        ['plans', 'show', '0000000000'],
        /^error: no plan matches `0000000000` \(3 plans in 3 session logs under \.dsh\/sessions\)\n$/,
      ],
      [
        ['plans', 'show', `${approved}:2`],
        /^error: no plan matches `.*:2` \(1 plan in 1 session log under \.dsh\/sessions\)\n$/,
      ],
      [['plans', 'show', 'nope:1'], /^error: no session `nope` in \.dsh\/sessions\n$/],
      [['plans', '--session', 'nope'], /^error: no session `nope` in \.dsh\/sessions\n$/],
      [['plans', 'show'], /^error: `plans show` needs a REF/],
      [['plans', 'shwo', 'x'], /^error: unknown argument `shwo`\nhelp: did you mean `show`\?/],
      [['plans', '--out', 'x.md'], /^error: `--out` goes with `plans show REF`/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, { cwd: dir });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stdout, args.join(' ')).toBe('');
    }
  });
});

describe('dsh-mode plans over logs a crash or a hand edit left', () => {
  it('lists a plan whose log ends at the open question as pending, and notes a recorded hash that does not match', async () => {
    const work = planProject([]).dir;
    const copy = (id: string, name: string, edit: (lines: string[]) => string[]): void => {
      const lines = readFileSync(join(sessions(), `${id}.jsonl`), 'utf8')
        .trimEnd()
        .split('\n');
      writeFileSync(join(work, '.dsh/sessions', `${name}.jsonl`), `${edit(lines).join('\n')}\n`, {
        flag: 'w',
      });
    };
    await runCli(['plans'], { cwd: work }); // no sessions folder yet: nothing to list, nothing created
    expect(readdirSync(work)).toEqual(['script.json']);
    planChat(work, 'n\n', {});
    copy(cancelled, 'crashed', (lines) =>
      lines.slice(0, lines.findIndex((l) => l.includes('"approval/asked"')) + 1),
    );
    copy(approved, 'altered', (lines) =>
      lines.map((l) => l.replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${'0'.repeat(64)}"`)),
    );
    const run = await runCli(['plans'], { cwd: work });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ altered:1 +approved +edited /);
    expect(run.stdout).toMatch(/ crashed:1 +pending +/);
    expect(run.stdout).toContain(
      `note: .dsh/sessions/altered.jsonl: plan altered:1 hashes to ${sha256(FINAL).slice(0, 12)}, but its approval/decided records ${'0'.repeat(64)}`,
    );
  });

  it('names a damaged or linked log on stderr with the reason, lists the rest, and exits 2', async () => {
    const work = planProject([]).dir;
    planChat(work, 'n\n', {});
    const good = readdirSync(join(work, '.dsh/sessions')).find((f) => f.endsWith('.jsonl'))!;
    const lines = readFileSync(join(work, '.dsh/sessions', good), 'utf8').split('\n');
    writeFileSync(
      join(work, '.dsh/sessions/damaged.jsonl'),
      [lines[0], '{oops', ...lines.slice(1)].join('\n'),
    );
    symlinkSync(join(work, '.dsh/sessions', good), join(work, '.dsh/sessions/linked.jsonl'));
    const before = readFileSync(join(work, '.dsh/sessions/damaged.jsonl'));
    const run = await runCli(['plans'], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(run.stdout).toContain(`${good.replace(/\.jsonl$/, '')}:1  rejected`);
    expect(run.stderr).toMatch(
      /^warning: \.dsh\/sessions\/damaged\.jsonl:2: malformed journal line: .*; this log was not read$/m,
    );
    expect(run.stderr).toMatch(
      /^warning: .*\.dsh\/sessions\/linked\.jsonl.*symbolic link.*; this log was not read$/m,
    );
    expect(readFileSync(join(work, '.dsh/sessions/damaged.jsonl'))).toEqual(before);
  });
});

describe('docs/apps.md: the plans listing is what a demo user sees', () => {
  it('after one demo answered n and one whose plan was edited and approved', async () => {
    const project = planProject([{ kind: 'append', text: "4. Test `greet('Ada', { shout: true })`.\n" }]);
    const demo = (answers: string): void => {
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', EDITOR: project.editor };
      delete env.DEEPSEEK_API_KEY;
      delete env.VISUAL;
      const run = spawnSync(process.execPath, [BIN, 'chat', '--demo'], {
        cwd: project.dir,
        input: answers,
        encoding: 'utf8',
        env,
      });
      expect(run.status, run.stderr).toBe(0);
    };
    demo('n\n');
    demo('e\ny\n');
    const run = await runCli(['plans'], { cwd: project.dir });
    expect(run.code, run.stderr).toBe(0);
    const page = readFileSync(join(ROOT, 'docs/apps.md'), 'utf8');
    const section = page.slice(page.indexOf('## Finding plans'));
    const shown = /```text\n([\s\S]*?)```/g;
    shown.exec(section); // the synopsis
    const listing = shown.exec(section)?.[1];
    // Times and session ids differ per run; everything else is as the page shows it.
    const normal = (text: string): string =>
      text
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'TIME')
        .replace(/\d{8}-\d{6}-[0-9a-f]{6}/g, 'SESSION')
        .replace(/^TIME {16}/m, 'TIME');
    expect(normal(run.stdout)).toBe(normal(listing ?? ''));
  });
});
