/**
 * The chat's read-eval loop over one agent: lines are prompts for the model, except the slash commands, which
 * never reach the model: `/mode` (the mode, any pending change, the available modes with their descriptions),
 * `/mode NAME` (switch; a banner says it applies from the next turn; an unknown name prints the error with the
 * available modes), `/help`, `/exit` (also at an approval question, where it cancels the question). The prompt
 * string shows the mode (`plan> `, `plan→default> ` while a change is pending). A line typed on a TTY during a
 * turn is queued for the next prompt, and the chat says so. Ctrl-C cancels the running turn; a second Ctrl-C
 * during the same turn, or one at the prompt, exits.
 * @module
 */
import type { LoopAgent } from '../../host/loop.js';
import type { ModesService } from '../../engine/service.js';
import type { Printer } from './render.js';
import { visible } from '../visible.js';
import type { Terminal } from './terminal.js';

/** What the loop runs with. */
export interface ReplInit {
  agent: LoopAgent;
  modes: ModesService | undefined;
  terminal: Terminal;
  printer: Printer;
  /** A first prompt sent without asking (`--prompt`, the demo). */
  firstPrompt?: string;
  /** Exit after the first prompt's turn (`--prompt`). */
  once?: boolean;
  /** A line printed after the first prompt's turn when the chat goes on (the demo's "what now"). */
  afterFirst?: string;
}

const HELP = [
  'commands (never sent to the model):',
  '  /mode         show the current mode, any pending change, and the available modes',
  '  /mode NAME    switch mode (applies from the next turn)',
  '  /help         this help',
  '  /exit         leave (also Ctrl-D; Ctrl-C cancels a running turn, twice exits)',
].join('\n');

/**
 * Runs the loop until `/exit`, the end of input, or an exit by Ctrl-C.
 * @returns the exit code: 0; 2 when the only turn (`once`) failed; 130 after an exit by Ctrl-C
 */
export async function runRepl(init: ReplInit): Promise<number> {
  const { agent, modes, terminal, printer } = init;
  let turn: AbortController | null = null;
  let interrupted = false;
  let exitByInterrupt: () => void = () => {};
  const exitRequest = new Promise<'exit'>((resolve) => {
    exitByInterrupt = () => resolve('exit');
  });
  let leave: () => void = () => {};
  const leaveRequest = new Promise<'leave'>((resolve) => {
    leave = () => resolve('leave');
  });
  // `/exit` at an approval question: the running turn is cancelled, and the chat leaves once it has ended (so
  // the log records how it ended), with exit code 0.
  terminal.onLeave(() => {
    leave();
    terminal.close();
  });
  terminal.onTypedAhead((line) =>
    printer.line(
      `  (queued, sent when this turn ends: ${line.length > 60 ? `${line.slice(0, 59)}…` : line})`,
    ),
  );
  terminal.onInterrupt(() => {
    if (turn && !turn.signal.aborted) {
      if (terminal.asking) printer.text('\n');
      printer.line('^C cancelling the turn (Ctrl-C again to exit)');
      turn.abort();
      return;
    }
    interrupted = true;
    exitByInterrupt();
    terminal.close();
  });

  const indicator = (): string => {
    if (!modes) return '';
    const state = modes.get(agent);
    return state.pending !== undefined ? `${state.current}→${state.pending}` : state.current;
  };
  const promptString = (): string => `${indicator()}> `;

  const runTurn = async (text: string): Promise<'exit' | 'leave' | 'failed' | void> => {
    const controller = new AbortController();
    turn = controller;
    try {
      const running = agent.prompt(text, { signal: controller.signal });
      const outcome = await Promise.race([running, exitRequest, leaveRequest]);
      if (outcome === 'exit') {
        controller.abort();
        return 'exit';
      }
      if (outcome === 'leave') {
        controller.abort();
        // A Ctrl-C while the cancelled turn winds down exits at once.
        return (await Promise.race([running, exitRequest])) === 'exit' ? 'exit' : 'leave';
      }
      printer.endLine();
      if (outcome.reason === 'cancelled') printer.line('(turn cancelled)');
      else if (outcome.reason === 'max-steps') printer.line('(turn stopped: step limit reached)');
      else if (outcome.reason === 'error') {
        printer.line(`(turn failed: ${visible(lastTurnError(agent), 'line')})`);
        return 'failed';
      }
    } finally {
      turn = null;
    }
  };

  const command = (line: string): 'exit' | void => {
    const [name, ...rest] = line.slice(1).trim().split(/\s+/);
    switch (name) {
      case 'exit':
      case 'quit':
        return 'exit';
      case 'help':
        printer.line(HELP);
        return;
      case 'mode':
        modeCommand(rest[0]);
        return;
      default:
        printer.line(`unknown command \`/${name ?? ''}\`; type /help for the commands`);
    }
  };

  const modeCommand = (target: string | undefined): void => {
    if (!modes) {
      printer.line('this deployment has no mode plugin, so there are no modes');
      return;
    }
    if (target === undefined) {
      const state = modes.get(agent);
      const pending =
        state.pending !== undefined ? ` (pending: ${state.pending}, applies from the next turn)` : '';
      const undefinedNote = state.defined ? '' : ' (not defined here: every tool is denied; switch mode)';
      printer.line(`mode: ${state.current}${pending}${undefinedNote}`);
      printer.line(modeList(modes, state.pending ?? state.current));
      return;
    }
    try {
      const state = modes.set(agent, target);
      const effective = state.pending ?? state.current;
      printer.line(
        effective === target && state.pending !== undefined
          ? `── mode → ${target}: applies from the next turn ──`
          : `── already in ${target} mode ──`,
      );
    } catch (error) {
      printer.line((error as Error).message);
    }
  };

  if (init.firstPrompt !== undefined) {
    printer.line(`${promptString()}${init.firstPrompt}`);
    const first = await runTurn(init.firstPrompt);
    if (first === 'exit') return 130;
    if (first === 'leave') return 0;
    if (init.once) return interrupted ? 130 : first === 'failed' ? 2 : 0;
    if (init.afterFirst !== undefined) printer.line(init.afterFirst);
  }
  for (;;) {
    const line = await terminal.ask(promptString(), undefined, { typedAhead: true });
    if (line === null) break;
    const text = line.trim();
    if (text === '') continue;
    if (text.startsWith('/')) {
      if (command(text) === 'exit') break;
      continue;
    }
    const outcome = await runTurn(text);
    if (outcome === 'exit') return 130;
    if (outcome === 'leave') break;
  }
  printer.endLine();
  return interrupted ? 130 : 0;
}

/**
 * The available modes, one a line with its description, the current (or pending) one marked `*`.
 * @param modes the mode service
 * @param marked the mode to mark
 */
export function modeList(modes: ModesService, marked: string): string {
  const list = modes.list();
  const width = Math.max(...list.map((m) => m.name.length));
  const rows = list.map((m) => {
    const about = m.description ? `  ${visible(m.description.replace(/\s+/g, ' ').trim(), 'line')}` : '';
    return `  ${m.name === marked ? '*' : ' '} ${visible(m.name, 'line').padEnd(width)}${about}`;
  });
  return ['available modes:', ...rows].join('\n');
}

/** The error text of the agent's last failed turn. */
function lastTurnError(agent: LoopAgent): string {
  const events = agent.session.events;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'turn/end') return event.data.error ?? 'unknown error';
  }
  return 'unknown error';
}
