/**
 * What the chat prints while a turn runs: the assistant's text as it streams, and one line per tool call with
 * its outcome once its result is logged, both with control, bidi and zero-width characters made visible
 * (`visible`). A call the gate denied, or whose approval was not given, is marked as such (the final verdict is
 * observed on `tools/verdict`), so a denied write is visible at a glance.
 *
 * Lines that start with one of the chat's own marks (`✓ ✗ → ┌ │ └ ─`, after indentation) are the chat's: a tool
 * line, an approval outcome, a box, a mode change. Untrusted text never produces one: a tool line is one line
 * (names and arguments escaped in `line` mode), a box prefixes every line it shows, and a mark at the start of a
 * streamed line is escaped.
 * @module
 */
import type { Context } from 'cordis';
import type { PreExecuteResult, Session, SessionEvent, SessionEventMap } from '../../host/types.js';
import { visible } from '../visible.js';

export { visible } from '../visible.js';

/** The marks that start the chat's own lines. */
const MARKS = new Set(['✓', '✗', '→', '┌', '│', '└', '─']);
/**
 * What only indents a line: whitespace of any kind (tab, no-break and every other Unicode space) and the letters
 * that render blank (the Hangul fillers, the braille blank).
 */
const SPACE = /^[\s\u115f\u1160\u2800\u3164\uffa0]$/u;

/** Where the chat writes. */
export interface Output {
  write(text: string): void;
}

/** Keeps track of whether the cursor is at the start of a line, so tool lines never run into streamed text. */
export class Printer {
  #atLineStart = true;
  /** True while the current line holds only indentation, so a mark arriving now would start it. */
  #blankSoFar = true;

  constructor(private readonly out: Output) {}

  /** Streamed (untrusted) text, made visible, with a mark at the start of a line escaped. */
  text(text: string): void {
    if (text === '') return;
    let shown = '';
    for (const c of visible(text)) {
      if (this.#blankSoFar && MARKS.has(c)) {
        shown += `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`;
        this.#blankSoFar = false;
        continue;
      }
      shown += c;
      if (c === '\n') this.#blankSoFar = true;
      // Any Unicode space indents as a space does: a mark behind U+2002 or U+3000 would still look like ours.
      else if (!SPACE.test(c)) this.#blankSoFar = false;
    }
    this.out.write(shown);
    this.#atLineStart = text.endsWith('\n');
  }

  /** One whole line of the chat's own (a newline first when the cursor is mid-line); parts made visible. */
  line(text: string): void {
    this.endLine();
    this.out.write(`${visible(text)}\n`);
  }

  /** Ends the current line, if any. */
  endLine(): void {
    if (!this.#atLineStart) this.out.write('\n');
    this.#atLineStart = true;
    this.#blankSoFar = true;
  }
}

/**
 * The one-line summary of a call's arguments: its `path`, `pattern` or `command` when it has one.
 * @param args the call's arguments
 */
export function describeArgs(args: unknown): string {
  if (typeof args !== 'object' || args === null) return '';
  const record = args as Record<string, unknown>;
  for (const key of ['path', 'pattern', 'command']) {
    if (typeof record[key] === 'string') return ` ${visible(clip(record[key] as string, 60), 'line')}`;
  }
  return '';
}

/** Whitespace runs collapsed to one space, then cut to `max` characters. */
function clip(text: string, max: number): string {
  return cut(text.replace(/\s+/g, ' ').trim(), max);
}

/** Cut to `max` UTF-16 units with an ellipsis, never between the halves of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
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
  // Names, arguments and results are model- or tool-controlled: one line each, so none can start a fake one.
  const head = `  ${result.isError ? '✗' : '✓'} ${visible(cut(String(result.name), 200), 'line')}${describeArgs(args)}`;
  const detail = visible(clip(result.content.replace(/^Error:\s*/, ''), 160), 'line');
  if (!result.isError) return `${head} — ${summary(result.content)}`;
  if (verdict === 'deny') return `${head} — DENIED: ${detail}`;
  if (verdict === 'ask') return `${head} — NOT APPROVED: ${detail}`;
  return `${head} — error: ${detail}`;
}

function summary(content: string): string {
  const lines = content.split('\n').length;
  return lines > 1 ? `ok (${lines} lines)` : `ok: ${visible(clip(content, 80), 'line')}`;
}
