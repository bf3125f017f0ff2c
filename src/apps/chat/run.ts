/**
 * `dsh-mode chat`: starts the deployment, opens (or resumes) the session in `<workspace>/.dsh/sessions/`, prints
 * its id, wires the terminal answerer and the tool-line printer to the chat's agent, and runs the REPL.
 *
 * The demo (`--demo`, what `npm start` runs) uses the embedded deployment, recreates `.dsh/demo/` with a tiny
 * project as the tools' workspace, keeps its log in `.dsh/sessions/` of the current folder, starts in plan mode
 * and sends its first prompt itself: it writes nothing outside `.dsh/`. A resumed demo keeps `.dsh/demo/` as it
 * is (seeding it only when it is missing) and waits for the user.
 *
 * On leaving, the chat prints the command that resumes the session.
 * @module
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { modeOfSet } from '../../engine/fold.js';
import { UnknownModeError } from '../../engine/service.js';
import {
  DeploymentError,
  planDeployment,
  startDeployment,
  TrustStoreError,
  UntrustedConfigError,
} from '../deployment.js';
import type { Runtime } from '../runtime-types.js';
import { answerApprovals } from './answerer.js';
import { Printer, watchToolCalls } from './render.js';
import { runRepl } from './repl.js';
import { openTerminal } from './terminal.js';
import { visible } from '../visible.js';

/** The chat's options, as parsed from the command line. */
export interface ChatOptions {
  cwd: string;
  config?: string;
  prompt?: string;
  mode?: string;
  resume?: string;
  modelScript?: string;
  workspace?: string;
  demo?: boolean;
}

/** The streams the chat uses. */
export interface ChatIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Whether stdin is a terminal (readline editing) or a pipe (one queue of lines). */
  tty: boolean;
  /** Whether stdout takes ANSI styling (reasoning is dimmed); without it reasoning lines are prefixed. */
  color?: boolean;
  /** The terminal's columns, which boxes fit in (80 without one). */
  columns?: number;
}

/**
 * Runs the chat until it ends.
 * @returns the exit code: 0, 1 for a found cordis.yml that is not trusted or an unknown `--mode`, 2 for a
 *   deployment or usage error or a session that cannot be resumed, 130 after Ctrl-C
 */
export async function runChat(options: ChatOptions, io: ChatIo): Promise<number> {
  // The README's rule: 1 when the inputs were read and say no (an unknown mode), 2 when the chat cannot run.
  const fail = (message: string, code = 2): number => {
    io.stderr.write(`dsh-mode chat: ${message}\n`);
    return code;
  };
  let workspace = resolve(options.cwd, options.workspace ?? '.');
  let sessionsDir: string | undefined;
  let firstPrompt = options.prompt;
  let mode = options.mode;
  if (options.demo) {
    const demo = await import('../demo/script.js');
    workspace = resolve(options.cwd, '.dsh', 'demo');
    sessionsDir = resolve(options.cwd, '.dsh', 'sessions');
    const resuming = options.resume !== undefined;
    if (!resuming || !existsSync(workspace)) {
      rmSync(workspace, { recursive: true, force: true });
      for (const [path, text] of Object.entries(demo.DEMO_FILES)) {
        mkdirSync(dirname(join(workspace, path)), { recursive: true });
        writeFileSync(join(workspace, path), text);
      }
    }
    if (!resuming) {
      firstPrompt ??= demo.DEMO_PROMPT;
      mode ??= 'plan';
    }
  }

  let runtime: Runtime;
  try {
    const plan = planDeployment({
      cwd: options.cwd,
      embedded: options.demo,
      config: options.config,
      // The servers start in `--workspace`: the programs a trusted file runs from there are checked too.
      ...(options.workspace !== undefined ? { workspace } : {}),
    });
    runtime = await startDeployment(plan, {
      workspace,
      forceWorkspace: options.workspace !== undefined || options.demo === true,
      ...(options.modelScript !== undefined
        ? { modelScript: resolve(options.cwd, options.modelScript) }
        : {}),
      ...(sessionsDir !== undefined ? { sessionsDir } : {}),
      log: (line) => io.stderr.write(`${line}\n`),
      cwd: options.cwd,
    });
  } catch (error) {
    if (error instanceof DeploymentError) return fail(`the deployment cannot start:\n${error.message}`);
    if (error instanceof UntrustedConfigError || error instanceof TrustStoreError) {
      fail(error.message);
      return error.exitCode;
    }
    throw error;
  }

  try {
    const modes = runtime.modes;
    if (mode !== undefined) {
      if (!modes) return fail(`unknown mode \`${mode}\`: this deployment has no mode plugin`, 1);
      const names = modes.list().map((m) => m.name);
      if (!names.includes(mode)) return fail(new UnknownModeError(mode, names).message, 1);
    }
    // A new session with the demo model starts in plan mode; a resumed one keeps its logged mode.
    if (mode === undefined && options.resume === undefined) mode = runtime.startMode;
    let session;
    try {
      session =
        options.resume !== undefined
          ? await runtime.ctx.sessions.resume(options.resume)
          : runtime.ctx.sessions.create();
    } catch (error) {
      return fail((error as Error).message);
    }
    const terminal = openTerminal(io.stdin, io.stdout, io.tty);
    const printer = new Printer(
      { write: (text) => io.stdout.write(text) },
      { color: io.color === true, ...(io.columns !== undefined ? { width: io.columns } : {}) },
    );
    const agent = runtime.createAgent({
      session,
      ...(mode !== undefined ? { options: { mode } } : {}),
      onChunk: (chunk) =>
        chunk.kind === 'reasoning' ? printer.reasoning(chunk.text) : printer.text(chunk.text),
    });
    const disposers = [
      watchToolCalls(runtime.ctx, session, printer),
      answerApprovals(runtime.ctx, agent, terminal, printer),
      runtime.ctx.on('session/event', async (s, event, next) => {
        if (s === session && event.type === 'mode/set') {
          printer.own(printer.paint('cyan', `── mode is now ${visible(modeOfSet(event.data), 'line')} ──`));
        }
        return next();
      }),
    ];
    printer.line(`dsh-mode chat · session ${session.id}${options.resume !== undefined ? ' (resumed)' : ''}`);
    printer.line(`  log: ${session.file ?? '(in memory)'}`);
    printer.line(`  workspace: ${runtime.workspace} · model: ${runtime.model.name}`);
    if (modes) {
      // The target is the option, or a switch recorded by an earlier run that has not landed yet.
      const state = modes.get(agent);
      const target = mode ?? state.pending;
      const switching = target !== undefined && target !== state.current;
      printer.line(`  mode: ${state.current}${switching ? ` → ${target} from the first turn` : ''}`);
      if (!state.defined && !switching) {
        // The log's mode is not one this deployment defines: the engine fails closed on every call.
        printer.own(
          printer.paint(
            'yellow',
            `  mode \`${visible(state.current, 'line')}\` is not defined in this deployment, so every tool is denied; ` +
              'switch with /mode NAME (/mode lists the modes)',
          ),
        );
      }
    }
    printer.line('  type /help for commands');
    try {
      const code = await runRepl({
        agent,
        modes,
        terminal,
        printer,
        ...(firstPrompt !== undefined ? { firstPrompt } : {}),
        once: options.prompt !== undefined,
        ...(runtime.model.name === 'demo' && firstPrompt !== undefined
          ? {
              afterFirst:
                "(that was the demo's whole script: try /mode or /help, and /exit or Ctrl-D to leave)",
            }
          : {}),
      });
      if (session.file !== undefined) printer.line(`resume with: ${resumeCommand(options, session.id)}`);
      return code;
    } finally {
      for (const dispose of disposers) dispose();
      terminal.close();
      session.close();
    }
  } finally {
    await runtime.dispose();
  }
}

/** The command that resumes `id` with the options that find its log and deployment again. */
export function resumeCommand(options: ChatOptions, id: string): string {
  const args = ['dsh-mode', 'chat'];
  if (options.demo) args.push('--demo');
  if (options.config !== undefined) args.push('--config', options.config);
  if (options.workspace !== undefined) args.push('--workspace', options.workspace);
  if (options.modelScript !== undefined) args.push('--model-script', options.modelScript);
  args.push('--resume', id);
  return args.map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: bare when it is safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
