/**
 * Editing a plan in the user's editor, as git edits a commit message: the text goes to a fresh temporary
 * `plan.md` (in a private folder), the editor named by `$VISUAL`, else `$EDITOR` (else `vi` on a terminal) runs
 * through `sh -c '<editor> "$@"'`, so a command with flags (`code --wait`) works, and the file is read back.
 * On a terminal the editor gets the terminal (inherited stdio); without one it gets no stdin, so it never reads
 * the chat's queue of input lines, and its output goes to stderr.
 *
 * The outcome is an edit only when the editor exited 0 and the file's text changed; an editor that fails, is
 * ended by a signal or leaves the file as written is a cancelled edit. What the file holds must be UTF-8 and at
 * most {@link MAX_EDIT_BYTES}. The folder is removed afterwards, whatever happened.
 * @module
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The most the edited file may hold: a plan is at most 100,000 characters, four bytes each at worst. */
export const MAX_EDIT_BYTES = 400_000;

/** How an edit ended. */
export type EditResult =
  { kind: 'edited'; text: string } | { kind: 'unchanged' } | { kind: 'failed'; message: string };

/**
 * The editor command, as git picks it: `$VISUAL`, else `$EDITOR`, else `vi` when there is a terminal.
 * @param vars the environment variables
 * @param tty whether the chat runs on a terminal
 * @returns the command line, or null when there is none
 */
export function editorCommand(vars: NodeJS.ProcessEnv, tty: boolean): string | null {
  for (const name of ['VISUAL', 'EDITOR'] as const) {
    const value = vars[name]?.trim();
    if (value) return value;
  }
  return tty ? 'vi' : null;
}

/** What {@link editText} runs with. */
export interface EditOptions {
  /** The editor command line ({@link editorCommand}). */
  command: string;
  /** Give the editor the terminal (inherited stdio). */
  tty: boolean;
  /** Ends the editor (SIGTERM) when aborted: the question it serves was cancelled. */
  signal?: AbortSignal;
  /** The environment of the editor. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Lets the user edit `text` in their editor.
 * @param text the text to edit
 * @param options the editor and how to run it
 * @returns the edited text (with the trailing newline the file was given removed again when `text` had none),
 *   `unchanged`, or `failed` with a sentence saying why
 */
export async function editText(text: string, options: EditOptions): Promise<EditResult> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-plan-'));
  try {
    const file = join(dir, 'plan.md');
    // Editors expect a last newline; it is taken off again below so an untouched ending stays as the model wrote it.
    const written = text.endsWith('\n') ? text : `${text}\n`;
    writeFileSync(file, written, { mode: 0o600, flag: 'wx' });
    const ended = await runEditor(options, file);
    if (ended !== null) return { kind: 'failed', message: ended };
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return { kind: 'failed', message: 'the editor removed the file' };
    }
    if (size > MAX_EDIT_BYTES) {
      return { kind: 'failed', message: `the edited file is larger than ${MAX_EDIT_BYTES} bytes` };
    }
    let edited: string;
    try {
      edited = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
    } catch {
      return { kind: 'failed', message: 'the edited file is not valid UTF-8 text' };
    }
    if (edited === written) return { kind: 'unchanged' };
    return {
      kind: 'edited',
      text: !text.endsWith('\n') && edited.endsWith('\n') ? edited.slice(0, -1) : edited,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the editor on `file`; null when it exited 0, else why it did not. */
function runEditor(options: EditOptions, file: string): Promise<string | null> {
  const stdio: StdioOptions = options.tty ? 'inherit' : ['ignore', 2, 2];
  return new Promise((resolve) => {
    if (options.signal?.aborted) return resolve('the question was cancelled');
    // As git does: the shell splits the command, and the file is one argument it never re-parses.
    const child = spawn('sh', ['-c', `${options.command} "$@"`, options.command, file], {
      stdio,
      env: options.env ?? process.env,
    });
    const onAbort = (): void => void child.kill('SIGTERM');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve(`the editor could not start: ${error.message}`);
    });
    child.once('exit', (code, signal) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) resolve('the question was cancelled');
      else if (signal !== null) resolve(`the editor was ended by ${signal}`);
      else if (code === 127) resolve(`the editor \`${options.command}\` was not found (exit code 127)`);
      else if (code !== 0) resolve(`the editor exited with code ${code}`);
      else resolve(null);
    });
  });
}
