/**
 * A real scripted planning session for the plan-review tests: a project with a model script that proposes one
 * plan, a scripted `$EDITOR` (a node script run through `sh -c`, as a user's editor is) that follows a list of
 * steps, one per `e` (rewrite, empty, fail, keep, or read a line from its terminal), and `dsh-mode chat` run as a
 * child process on piped stdin.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');
export const BIN = join(ROOT, 'bin/dsh-mode.mjs');

export const PLAN = '# Add a greeting\n\n1. Write `hello.txt`.\n2. Report back.';
export const EDITED = '# Add a greeting\n\n1. Write `hello.txt` with "hello, world".\n2. Add a test.\n';
/** The approved text: the model's plan had no last newline, so the one the file was given is taken off again. */
export const FINAL = EDITED.slice(0, -1);

/**
 * The scripted editor: each run takes the next step of `steps.json` beside it, logs the file it was given
 * (`seen.jsonl`), and then rewrites, empties, keeps or fails.
 */
const EDITOR_SCRIPT = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const here = import.meta.dirname;
const file = process.argv[2];
const steps = JSON.parse(readFileSync(join(here, 'steps.json'), 'utf8'));
const seen = (() => { try { return readFileSync(join(here, 'seen.jsonl'), 'utf8').split('\\n').filter(Boolean).length; } catch { return 0; } })();
const step = steps[seen];
const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
appendFileSync(join(here, 'seen.jsonl'), JSON.stringify({ file, text: readFileSync(file, 'utf8'), args: process.argv.length - 2, tty }) + '\\n');
if (step.kind === 'write') writeFileSync(file, step.text);
else if (step.kind === 'empty') writeFileSync(file, '\\n  \\n');
else if (step.kind === 'fail') process.exit(3);
else if (step.kind === 'append') writeFileSync(file, readFileSync(file, 'utf8') + step.text);
else if (step.kind === 'type') {
  // An interactive editor: it reads the new plan's line from the terminal it was given.
  process.stdout.write('EDITOR READY> ');
  const line = await new Promise((resolve) => {
    let buffer = '';
    process.stdin.on('data', (chunk) => {
      buffer += chunk;
      if (buffer.includes('\\n')) resolve(buffer.split('\\n')[0]);
    });
  });
  writeFileSync(file, '# Typed in the editor\\n\\n' + line + '\\n');
  process.exit(0);
}
`;

export type Step =
  | { kind: 'write'; text: string }
  | { kind: 'empty' }
  | { kind: 'fail' }
  | { kind: 'keep' }
  | { kind: 'type' }
  | { kind: 'append'; text: string };

/** A folder with the model script and the scripted editor; `EDITOR` names it with a space in its path. */
export function planProject(steps: Step[]): { dir: string; editorDir: string; editor: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-plan-edit-'));
  writeFileSync(
    join(dir, 'script.json'),
    JSON.stringify([
      { text: 'Here is my plan.', tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] },
      { text: 'Carrying it out.' },
    ]),
  );
  const editorDir = mkdtempSync(join(tmpdir(), 'dsh editor '));
  writeFileSync(join(editorDir, 'editor.mjs'), EDITOR_SCRIPT);
  writeFileSync(join(editorDir, 'steps.json'), JSON.stringify(steps));
  // Quoted as a user would in their shell profile: the shell splits it, as git's `sh -c "$EDITOR \"$@\""` does.
  const editor = `'${process.execPath}' '${join(editorDir, 'editor.mjs')}'`;
  return { dir, editorDir, editor };
}

/** Runs one planning turn of `dsh-mode chat` with `answers` on stdin. */
export function planChat(
  dir: string,
  answers: string,
  env: NodeJS.ProcessEnv,
): { code: number | null; stdout: string; stderr: string; id: string } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...env };
  delete childEnv.DEEPSEEK_API_KEY;
  if (env.VISUAL === undefined) delete childEnv.VISUAL;
  if (env.EDITOR === undefined) delete childEnv.EDITOR;
  const result = spawnSync(
    process.execPath,
    [BIN, 'chat', '--model-script', 'script.json', '--mode', 'plan', '--prompt', 'plan it'],
    { cwd: dir, input: answers, encoding: 'utf8', env: childEnv },
  );
  const id = /session (\S+)/.exec(result.stdout)?.[1];
  if (!id) throw new Error(`no session id:\n${result.stdout}\n${result.stderr}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, id };
}

export function journal(dir: string, id: string): { type: string; data: Record<string, unknown> }[] {
  return readFileSync(join(dir, '.dsh/sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
