/**
 * What the chat prints while a turn runs: the assistant's text as it streams, and one line per tool call with
 * its outcome once its result is logged, both with terminal control characters made visible (`visible`). A call
 * the gate denied, or whose approval was not given, is marked as such (the final verdict is observed on
 * `tools/verdict`), so a denied write is visible at a glance.
 * @module
 */
import type { Context } from 'cordis';
import type { PreExecuteResult, Session, SessionEvent, SessionEventMap } from '../../host/types.js';

/** Where the chat writes. */
export interface Output {
  write(text: string): void;
}

/** Keeps track of whether the cursor is at the start of a line, so tool lines never run into streamed text. */
export class Printer {
  #atLineStart = true;

  constructor(private readonly out: Output) {}

  /** Streamed text, with terminal control characters made visible (see `visible`). */
  text(text: string): void {
    if (text === '') return;
    this.out.write(visible(text));
    this.#atLineStart = text.endsWith('\n');
  }

  /** One whole line (a newline first when the cursor is mid-line). */
  line(text: string): void {
    this.endLine();
    this.out.write(`${text}\n`);
  }

  /** Ends the current line, if any. */
  endLine(): void {
    if (!this.#atLineStart) this.out.write('\n');
    this.#atLineStart = true;
  }
}

/**
 * Model-controlled text made safe to print (streamed text, tool lines, approval questions): terminal control
 * characters (ESC, CR, other C0 and C1, DEL) are shown as `\xNN` instead of acting on the terminal, so a model
 * cannot repaint the screen, e.g. fake or hide part of an approval question. Newline and tab pass.
 * @param text the text
 */
export function visible(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/**
 * The one-line summary of a call's arguments: its `path`, `pattern` or `command` when it has one.
 * @param args the call's arguments
 */
export function describeArgs(args: unknown): string {
  if (typeof args !== 'object' || args === null) return '';
  const record = args as Record<string, unknown>;
  for (const key of ['path', 'pattern', 'command']) {
    if (typeof record[key] === 'string') return ` ${clip(record[key] as string, 60)}`;
  }
  return '';
}

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * Subscribes the tool-line printer for one session.
 * @param ctx the deployment's context
 * @param session the chat's session
 * @param printer where lines go
 * @returns a disposer
 */
export function watchToolCalls(ctx: Context, session: Session, printer: Printer): () => void {
  const calls = new Map<string, { name: string; args: unknown }>();
  const verdicts = new Map<string, PreExecuteResult['kind']>();
  const offVerdict = ctx.on('tools/verdict', (exec, verdict) => {
    if (exec.agent?.session === session) verdicts.set(exec.callId, verdict.kind);
  });
  const offEvent = ctx.on(
    'session/event',
    async (s: Session, event: SessionEvent, next: () => Promise<void>) => {
      if (s === session) {
        if (event.type === 'tool/call') {
          const data = event.data as SessionEventMap['tool/call'];
          calls.set(data.callId, { name: data.name, args: data.arguments });
        } else if (event.type === 'tool/result') {
          const data = event.data as SessionEventMap['tool/result'];
          const call = calls.get(data.callId);
          calls.delete(data.callId);
          const verdict = verdicts.get(data.callId);
          verdicts.delete(data.callId);
          printer.line(toolLine(data, call?.args, verdict));
        }
      }
      return next();
    },
  );
  return () => {
    offVerdict();
    offEvent();
  };
}

/**
 * The line for one finished call.
 * @param result the logged result
 * @param args the call's arguments
 * @param verdict the gate's verdict, when the call got that far
 */
export function toolLine(
  result: SessionEventMap['tool/result'],
  args: unknown,
  verdict: PreExecuteResult['kind'] | undefined,
): string {
  // Names, arguments and results are model- or tool-controlled: made visible like streamed text.
  const head = `  ${result.isError ? '✗' : '✓'} ${result.name}${describeArgs(args)}`;
  const detail = clip(result.content.replace(/^Error:\s*/, ''), 160);
  if (!result.isError) return visible(`${head} — ${summary(result.content)}`);
  if (verdict === 'deny') return visible(`${head} — DENIED: ${detail}`);
  if (verdict === 'ask') return visible(`${head} — NOT APPROVED: ${detail}`);
  return visible(`${head} — error: ${detail}`);
}

function summary(content: string): string {
  const lines = content.split('\n').length;
  return lines > 1 ? `ok (${lines} lines)` : `ok: ${clip(content, 80)}`;
}
