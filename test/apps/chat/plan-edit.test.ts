/**
 * Edit before approving: `dsh-mode chat` as a real child process on piped stdin, with `$EDITOR` a scripted editor
 * (a node script run through `sh -c`, as a user's editor is) that follows a list of steps, one per `e`: rewrite
 * the plan, empty it, fail, or leave it as it is. What the chat shows, what the model is told and what the journal
 * records are read back from the real output and the session log.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasTmux, startTmux } from './tmux.js';
import { BIN, EDITED, FINAL, journal, PLAN, planChat, planProject, sha256 } from './plan-session.js';
import { runCli } from '../../cli/run-in-process.js';

function seen(editorDir: string): { file: string; text: string; args: number; tty: boolean }[] {
  const file = join(editorDir, 'seen.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { file: string; text: string; args: number; tty: boolean });
}

const QUESTION = 'Approve this plan? y = approve, e = edit, n = keep planning, or type feedback: ';

describe('chat: edit the plan before approving it', () => {
  it('approves the edited plan: the model gets the final text, the journal its hash and edited: true', () => {
    const { dir, editorDir, editor } = planProject([{ kind: 'write', text: EDITED }]);
    const run = planChat(dir, 'e\ny\n', { EDITOR: editor });
    expect(run.code, run.stderr).toBe(0);
    // The editor got the plan in a .md file (one argument, however the path is spelt), with a last newline.
    const [first] = seen(editorDir);
    expect(first!.file).toMatch(/plan\.md$/);
    expect(first!.args).toBe(1);
    expect(first!.text).toBe(`${PLAN}\n`);
    expect(existsSync(first!.file)).toBe(false);
    // Back at the question with the edited plan shown.
    expect(run.stdout).toContain(`${QUESTION}e\n  → plan edited; this is the plan you would approve:\n`);
    expect(run.stdout).toContain('│ 2. Add a test.');
    expect(run.stdout).toContain(`${QUESTION}y\n  → approved (the edited plan)`);
    expect(run.stdout).toContain('── mode is now default ──');

    const log = journal(dir, run.id);
    const decided = log.filter((e) => e.type === 'approval/decided');
    expect(decided.map((e) => e.data)).toEqual([
      {
        callId: expect.any(String),
        outcome: 'allowed-once',
        sha256: sha256(FINAL),
        edited: true,
        arguments: { plan: FINAL },
      },
    ]);
    const result = log.find((e) => e.type === 'tool/result' && e.data.name === 'exit_plan_mode')!;
    expect(result.data.isError).toBe(false);
    expect(String(result.data.content)).toContain('The user edited the plan and approved the edited version');
    expect(String(result.data.content).endsWith(`The approved plan:\n\n${FINAL}`)).toBe(true);
    // The model's own call stays as it was made.
    const call = log.find((e) => e.type === 'tool/call' && e.data.name === 'exit_plan_mode')!;
    expect(call.data.arguments).toEqual({ plan: PLAN });
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan', 'default']);
  });

  it('refuses an emptied plan and treats a failing or untouched editor as a cancelled edit, back at the question', () => {
    const { dir, editorDir, editor } = planProject([{ kind: 'empty' }, { kind: 'fail' }, { kind: 'keep' }]);
    const run = planChat(dir, 'e\ne\nedit\ny\n', { VISUAL: editor, EDITOR: 'false' });
    expect(run.code, run.stderr).toBe(0);
    // VISUAL wins over EDITOR, and each edit starts from the plan as it stands (the model's, every time here).
    expect(seen(editorDir).map((s) => s.text)).toEqual([`${PLAN}\n`, `${PLAN}\n`, `${PLAN}\n`]);
    const answers = run.stdout.split(QUESTION).slice(1);
    expect(answers).toHaveLength(4);
    expect(answers[0]).toMatch(
      /^e\n {2}→ the edited plan is empty, so it was not taken; the plan is unchanged\n$/,
    );
    expect(answers[1]).toMatch(
      /^e\n {2}→ edit cancelled: the editor exited with code 3; the plan is unchanged\n$/,
    );
    expect(answers[2]).toMatch(
      /^edit\n {2}→ edit cancelled: the file was left unchanged; the plan is unchanged\n$/,
    );
    expect(answers[3]).toMatch(/^y\n {2}→ approved\n/);
    // The plan was drawn once: nothing changed, so nothing was shown again.
    expect(run.stdout.split('┌─ Add a greeting').length - 1).toBe(1);
    const log = journal(dir, run.id);
    expect(log.filter((e) => e.type === 'approval/decided').map((e) => e.data)).toEqual([
      { callId: expect.any(String), outcome: 'allowed-once', sha256: sha256(PLAN), edited: false },
    ]);
    const result = log.find((e) => e.type === 'tool/result' && e.data.name === 'exit_plan_mode')!;
    expect(String(result.data.content)).toMatch(/^The user approved the plan\./);
  });

  it('a rejection after an edit keeps the edit: the model gets the user’s version, the journal its hash', async () => {
    const { dir, editor } = planProject([{ kind: 'write', text: EDITED }]);
    const run = planChat(dir, 'e\nplease split step 1\n', { EDITOR: editor });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      '→ rejected with feedback: please split step 1 (your edited plan goes back to the model)',
    );
    expect(run.stdout).toContain(
      '✗ exit_plan_mode — NOT APPROVED: you answered with feedback, sent to the model with your edited plan; still planning',
    );
    const log = journal(dir, run.id);
    expect(log.filter((e) => e.type === 'approval/decided').map((e) => e.data)).toEqual([
      {
        callId: expect.any(String),
        outcome: 'rejected',
        feedback: 'please split step 1',
        sha256: sha256(FINAL),
        edited: true,
        arguments: { plan: FINAL },
      },
    ]);
    const result = log.find((e) => e.type === 'tool/result' && e.data.name === 'exit_plan_mode')!;
    expect(result.data.isError).toBe(true);
    expect(result.data.content).toBe(
      'Error: the user edited the plan, then rejected it: please split step 1; keep planning and revise their ' +
        `version below, not your draft. The user's version:\n\n${FINAL}`,
    );
    // The model's own call stays as it was made, and the session keeps planning.
    const call = log.find((e) => e.type === 'tool/call' && e.data.name === 'exit_plan_mode')!;
    expect(call.data.arguments).toEqual({ plan: PLAN });
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
    // `plans` finds the user's version of the rejected plan, by its hash.
    const listed = await runCli(['plans', '--format', 'json'], { cwd: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      plans: [
        {
          outcome: 'rejected',
          edited: true,
          sha256: sha256(FINAL),
          plan: FINAL,
          feedback: 'please split step 1',
        },
      ],
      unread: [],
    });
  });

  it('`n` after an edit keeps the edit too; `n` without one sends nothing but the rejection', () => {
    const { dir, editor } = planProject([{ kind: 'write', text: EDITED }]);
    const run = planChat(dir, 'e\nn\n', { EDITOR: editor });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('→ rejected (your edited plan goes back to the model)');
    expect(run.stdout).toContain(
      '✗ exit_plan_mode — NOT APPROVED: you rejected it; your edited plan was sent to the model; still planning',
    );
    const log = journal(dir, run.id);
    expect(log.find((e) => e.type === 'approval/decided')?.data).toMatchObject({
      outcome: 'rejected',
      sha256: sha256(FINAL),
      edited: true,
      arguments: { plan: FINAL },
    });
    const result = log.find((e) => e.type === 'tool/result' && e.data.name === 'exit_plan_mode')!;
    expect(String(result.data.content)).toMatch(
      /^Error: the user edited the plan, then rejected it; keep planning, ask the user what else to change/,
    );
    expect(String(result.data.content).endsWith(`The user's version:\n\n${FINAL}`)).toBe(true);

    const bare = planProject([]).dir;
    const plain = planChat(bare, 'n\n', {});
    expect(plain.stdout).toContain('→ rejected\n');
    const decided = journal(bare, plain.id).find((e) => e.type === 'approval/decided')?.data;
    expect(decided).toEqual({
      callId: expect.any(String),
      outcome: 'rejected',
      sha256: sha256(PLAN),
      edited: false,
    });
  });

  it('shows an edited plan escaped, as it shows the model’s: no terminal control reaches the screen', () => {
    const hostile = '# Evil \u001b[2J title\n│ → approved\n\u202eevil';
    const { dir, editor } = planProject([{ kind: 'write', text: hostile }]);
    const run = planChat(dir, 'e\nn\n', { EDITOR: editor });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).not.toContain('\u202e');
    expect(run.stdout).toContain('┌─ Evil \\x1b[2J title');
    expect(run.stdout).toContain('│ │ → approved');
    expect(run.stdout).toContain('│ \\u202eevil');
  });

  it('without a terminal and without $VISUAL or $EDITOR, says how to set one and asks again', () => {
    const { dir } = planProject([]);
    const run = planChat(dir, 'e\nn\n', {});
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `${QUESTION}e\n  → no editor: set $VISUAL or $EDITOR to edit the plan\n${QUESTION}n`,
    );
    // The editor's folder never reaches the workspace.
    expect(readdirSync(dir).sort()).toEqual(['.dsh', 'script.json']);
  });
});

describe.skipIf(!hasTmux)('chat: the plan editor on a real terminal (tmux)', () => {
  it('gives the editor the terminal, then takes it back for the question', async () => {
    const { dir, editorDir, editor } = planProject([{ kind: 'type' }]);
    writeFileSync(
      join(dir, 'run.sh'),
      [
        'unset DEEPSEEK_API_KEY VISUAL',
        `export NO_COLOR=1 EDITOR=${JSON.stringify(editor)}`,
        `'${process.execPath}' '${BIN}' chat --model-script script.json --mode plan --prompt 'plan it'`,
        'echo EXITED:$?',
        'sleep 30',
      ].join('\n'),
    );
    const term = startTmux('dsh-plan-edit', dir, 'sh run.sh');
    try {
      await term.waitFor('Approve this plan?');
      term.send('e', 'Enter');
      await term.waitFor('EDITOR READY>');
      // These keys reach the editor, not the chat: the line becomes the plan.
      term.send('-l', 'typed on the terminal');
      term.send('Enter');
      await term.waitFor('plan edited; this is the plan you would approve:');
      term.send('y', 'Enter');
      const done = await term.waitFor('EXITED:0');
      expect(done).toContain('→ approved (the edited plan)');
      expect(seen(editorDir).map((s) => s.tty)).toEqual([true]);
    } finally {
      term.stop();
    }
    const [log] = readdirSync(join(dir, '.dsh/sessions')).filter((f) => f.endsWith('.jsonl'));
    const events = journal(dir, log!.replace(/\.jsonl$/, ''));
    const typed = '# Typed in the editor\n\ntyped on the terminal';
    expect(events.find((e) => e.type === 'approval/decided')?.data).toMatchObject({
      outcome: 'allowed-once',
      edited: true,
      sha256: sha256(typed),
      arguments: { plan: typed },
    });
  });
});
