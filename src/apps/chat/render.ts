/**
 * What the chat prints while a turn runs: the assistant's text as it streams (a thinking model's reasoning dimmed,
 * or prefixed `thinking: ` without colour), and one line per tool call with
 * its outcome once its result is logged, both with control, bidi and zero-width characters made visible
 * (`visible`). A call the gate denied, or whose approval was not given, is marked as such (the final verdict is
 * observed on `tools/verdict`), so a denied write is visible at a glance.
 *
 * Lines that start with one of the chat's own marks (`✓ ✗ → ┌ │ └ ─`, after indentation) are the chat's: a tool
 * line, an approval outcome, a box, a mode change. Untrusted text never produces one: a tool line is one line
 * (names and arguments escaped in `line` mode), a box prefixes every line it shows and fits the terminal, and a
 * mark at the start of a streamed line is escaped. A terminal also soft-wraps a long line, so the printer counts
 * the screen column of all it prints and escapes a mark that would begin a screen row after only indentation.
 * @module
 */
import type { Context } from 'cordis';
import type { PreExecuteResult, Session, SessionEvent, SessionEventMap } from '../../host/types.js';
import { paint, type Style } from '../colour.js';
import { visible } from '../visible.js';

export { visible } from '../visible.js';

const DIM = '\u001b[2m';
const UNDIM = '\u001b[22m';
/** What starts a line of reasoning when there is no colour to dim it. */
export const THINKING = 'thinking: ';

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

/** Where a terminal puts tab stops: every 8 columns. */
const TERMINAL_TAB = 8;
/** An escape sequence the chat itself writes (colour): it takes no columns. */
const SGR = /^\u001b\[[0-9;]*m/;

/**
 * Keeps track of whether the cursor is at the start of a line, so tool lines never run into streamed text, and of
 * the screen column of everything it has printed, so that no mark can begin a screen row a terminal soft-wraps:
 * a terminal `width` columns wide starts a new row after `width` columns (a wide letter that does not fit moves
 * whole to the next row), so a mark there, after nothing but indentation on that row, is escaped as at the start
 * of a line — in untrusted text and in the chat's own lines alike (those hold untrusted parts: a tool's name, its
 * output). Only a mark at the start of a line of the chat's own keeps its meaning.
 */
export class Printer {
  #atLineStart = true;
  /** The screen column the next letter goes to (0 at a row's start; `width` once the row is full). */
  #column = 0;
  /** True while the current screen row holds only indentation, so a mark arriving now would start it. */
  #rowBlank = true;
  /** True when the current screen row is one the terminal wrapped to (not the first row of a line). */
  #softRow = false;
  /** True while the streamed lines are reasoning. */
  #thinking = false;
  readonly #width: number;

  /**
   * @param out where the chat writes
   * @param options `color`: ANSI styling allowed (a terminal without `NO_COLOR`); `width`: the terminal's columns
   *   (boxes fit in them, and rows wrap after them; {@link DEFAULT_WIDTH} without a terminal)
   */
  constructor(
    private readonly out: Output,
    private readonly options: { color?: boolean; width?: number } = {},
  ) {
    const width = options.width;
    this.#width =
      width !== undefined && Number.isFinite(width) && width >= 1 ? Math.floor(width) : DEFAULT_WIDTH;
  }

  /** Whether lines may be styled. */
  get color(): boolean {
    return this.options.color === true;
  }

  /** `text` in `style` when colour is on; the caller has made `text` visible. */
  paint(style: Style, text: string): string {
    return paint(style, text, this.color);
  }

  /**
   * A line (or lines) of the chat's own that the caller built from parts already made visible, possibly styled
   * with {@link paint}: written as is (so its colour codes survive), but for a mark a soft wrap puts at the start
   * of a screen row.
   */
  own(text: string): void {
    this.endLine();
    this.out.write(this.#place(`${text}\n`, false));
  }

  /**
   * A titled box around untrusted text (see {@link box}), sized to the terminal, after a blank line.
   * @param body the body's lines (untrusted: {@link box} escapes them), each with an optional style
   */
  card(title: string, body: readonly BoxLine[]): void {
    this.endLine();
    this.out.write('\n');
    this.own(box(title, body, boxWidth(this.options.width), this.color));
  }

  /** Streamed (untrusted) text, made visible, with a mark at the start of a line or of a screen row escaped. */
  text(text: string): void {
    if (text === '') return;
    if (this.#thinking) this.endLine();
    this.out.write(this.#place(visible(text), true));
    this.#atLineStart = text.endsWith('\n');
  }

  /**
   * Streamed (untrusted) reasoning of a thinking model, on lines of its own: dimmed with colour, else every line
   * prefixed `thinking: `. Made visible and escaped as `text` is.
   */
  reasoning(text: string): void {
    if (text === '') return;
    if (!this.#thinking) {
      this.endLine();
      this.#thinking = true;
    }
    if (this.options.color) {
      this.out.write(`${DIM}${this.#place(visible(text), true)}${UNDIM}`);
      this.#atLineStart = text.endsWith('\n');
      return;
    }
    for (const [index, part] of text.split('\n').entries()) {
      if (index > 0) {
        this.out.write(this.#place('\n', true));
        this.#atLineStart = true;
      }
      if (part === '') continue;
      if (this.#atLineStart) this.out.write(this.#place(THINKING, false));
      this.out.write(this.#place(visible(part), true));
      this.#atLineStart = false;
    }
  }

  /**
   * `text` (made visible, or the chat's own with its colour codes) as it is to be written, advancing the screen
   * column: a mark that would begin a screen row after only indentation is escaped when the text is untrusted or
   * the row is one a soft wrap began. Tabs become the spaces a terminal would move over, so the column is exact.
   */
  #place(text: string, untrusted: boolean): string {
    let shown = '';
    for (let at = 0; at < text.length;) {
      if (text[at] === '\u001b') {
        const sgr = SGR.exec(text.slice(at));
        if (sgr) {
          shown += sgr[0];
          at += sgr[0].length;
          continue;
        }
      }
      const c = String.fromCodePoint(text.codePointAt(at)!);
      at += c.length;
      if (c === '\n') {
        shown += c;
        this.#column = 0;
        this.#rowBlank = true;
        this.#softRow = false;
      } else if (c === '\t') {
        // Spaces to the next stop (or the row's end) instead: how a terminal moves over a tab at a row's end
        // varies, how it moves over spaces does not.
        const stop = Math.min(this.#width, (Math.floor(this.#column / TERMINAL_TAB) + 1) * TERMINAL_TAB);
        const pad = Math.max(1, stop - this.#column);
        shown += ' '.repeat(pad);
        this.#advance(pad);
      } else {
        const width = charWidth(c);
        if (width > 0 && this.#column + width > this.#width) this.#wrapRow();
        if (width > 0 && this.#rowBlank && MARKS.has(c) && (untrusted || this.#softRow)) {
          const escaped = `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`;
          shown += escaped;
          this.#advance(escaped.length);
          this.#rowBlank = false;
          continue;
        }
        shown += c;
        this.#column += width;
        // Any Unicode space indents as a space does (a mark behind U+2002 or U+3000 would still look like ours);
        // a mark of no width changes nothing about what the row shows first.
        if (width > 0 && !SPACE.test(c)) this.#rowBlank = false;
      }
    }
    return shown;
  }

  /** Moves over `columns` one-column letters that are not marks (spaces, an escape's spelling). */
  #advance(columns: number): void {
    for (let n = 0; n < columns; n++) {
      if (this.#column + 1 > this.#width) this.#wrapRow();
      this.#column++;
    }
  }

  /** The terminal has moved to a new screen row of the same line. */
  #wrapRow(): void {
    this.#column = 0;
    this.#rowBlank = true;
    this.#softRow = true;
  }

  /** One whole line of the chat's own (a newline first when the cursor is mid-line); parts made visible. */
  line(text: string): void {
    this.endLine();
    this.out.write(this.#place(`${visible(text)}\n`, false));
  }

  /** Ends the current line, if any. */
  endLine(): void {
    this.#thinking = false;
    if (!this.#atLineStart) this.out.write(this.#place('\n', false));
    this.#atLineStart = true;
    this.#column = 0;
    this.#rowBlank = true;
    this.#softRow = false;
  }
}

/**
 * The one-line summary of a call's arguments: its `path`, `pattern` or `command` when it has one.
 * @param args the call's arguments
 */
export function describeArgs(args: unknown, max = 60): string {
  if (typeof args !== 'object' || args === null) return '';
  const record = args as Record<string, unknown>;
  for (const key of ['path', 'pattern', 'command']) {
    if (typeof record[key] === 'string') return ` ${visible(clip(record[key] as string, max), 'line')}`;
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

/** How an asked call's question was answered (`approval/decided`). */
export type Decision = SessionEventMap['approval/decided'];

/**
 * Subscribes the tool-line printer for one session.
 * @param ctx the deployment's context
 * @param session the chat's session
 * @param printer where lines go
 * @returns a disposer
 */
export function watchToolCalls(ctx: Context, session: Session, printer: Printer): () => void {
  const calls = new Map<string, { name: string; args: unknown }>();
  const verdicts = new Map<string, PreExecuteResult>();
  const decisions = new Map<string, Decision>();
  const offVerdict = ctx.on('tools/verdict', (exec, verdict) => {
    if (exec.agent?.session === session) verdicts.set(exec.callId, verdict);
  });
  const offEvent = ctx.on(
    'session/event',
    async (s: Session, event: SessionEvent, next: () => Promise<void>) => {
      if (s === session) {
        if (event.type === 'tool/call') {
          const { data } = event;
          calls.set(data.callId, { name: data.name, args: data.arguments });
        } else if (event.type === 'approval/decided') {
          decisions.set(event.data.callId, event.data);
        } else if (event.type === 'tool/result') {
          const { data } = event;
          const call = calls.get(data.callId);
          calls.delete(data.callId);
          const verdict = verdicts.get(data.callId);
          verdicts.delete(data.callId);
          const decision = decisions.get(data.callId);
          decisions.delete(data.callId);
          printer.own(toolLine(data, call?.args, verdict, decision, printer));
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
 * The line for one finished call, its parts made visible. A call the user was asked about says how they
 * answered, and a denied one why, in words for them (the result that goes back to the model is written for the
 * model: a deny's `userReason` replaces the model's next-step advice).
 * @param result the logged result
 * @param args the call's arguments
 * @param verdict the verdict (or only its kind), when the call got that far
 * @param decision the answer to its approval question, when it was asked
 * @param style paints the line's marks when colour is on
 */
export function toolLine(
  result: SessionEventMap['tool/result'],
  args: unknown,
  given: PreExecuteResult | PreExecuteResult['kind'] | undefined,
  decision?: Decision,
  style: Pick<Printer, 'paint'> = { paint: (_style, text) => text },
): string {
  const verdict = typeof given === 'object' ? given.kind : given;
  // Names, arguments and results are model- or tool-controlled: one line each, so none can start a fake one.
  const mark = result.isError ? style.paint('red', '✗') : style.paint('green', '✓');
  const head = `  ${mark} ${visible(cut(String(result.name), 200), 'line')}${describeArgs(args)}`;
  const detail = visible(clip(result.content.replace(/^Error:\s*/, ''), 160), 'line');
  const plan = result.name === 'exit_plan_mode';
  if (!result.isError) {
    if (decision?.outcome === 'allowed-once') {
      return plan
        ? `${head} — ${style.paint('green', 'plan approved')}: the full toolset returns on the next step`
        : `${head} — ${style.paint('green', 'approved')}, ${summary(result.content)}`;
    }
    return `${head} — ${summary(result.content)}`;
  }
  if (verdict === 'deny') {
    // The reason is what the user needs (which rule, what to do): the echoed arguments are cut, not the reason,
    // which is bounded only against a flood.
    const forUser = typeof given === 'object' && given.kind === 'deny' ? given.userReason : undefined;
    const why = visible(clip(forUser ?? result.content.replace(/^Error:\s*/, ''), DENY_REASON_MAX), 'line');
    const denied = `  ${mark} ${visible(cut(String(result.name), 200), 'line')}${describeArgs(args, 40)}`;
    return `${denied} — ${style.paint('red', 'DENIED')}: ${why}`;
  }
  if (verdict === 'ask' && decision !== undefined && decision.outcome !== 'allowed-once') {
    return `${head} — ${style.paint('yellow', 'NOT APPROVED')}: ${notApproved(decision, plan)}`;
  }
  if (verdict === 'ask') return `${head} — ${style.paint('yellow', 'NOT APPROVED')}: ${detail}`;
  return `${head} — ${style.paint('red', 'error')}: ${detail}`;
}

/** The longest deny reason a tool line shows (policy reasons and the engine's messages are far shorter). */
const DENY_REASON_MAX = 2000;

/** Why an asked call did not run, said to the user. */
function notApproved(decision: Decision, plan: boolean): string {
  const still = plan ? '; still planning' : '';
  switch (decision.outcome) {
    case 'rejected': {
      const edited = decision.edited === true;
      if (decision.feedback) {
        return `you answered with feedback, sent to the model${edited ? ' with your edited plan' : ''}${still}`;
      }
      return edited
        ? `you rejected it; your edited plan was sent to the model${still}`
        : `you rejected it${still}`;
    }
    case 'cancelled':
      return `the question was cancelled${still}`;
    default:
      return `no one could answer the question${still}`;
  }
}

function summary(content: string): string {
  const lines = content.split('\n').length;
  return lines > 1 ? `ok (${lines} lines)` : `ok: ${visible(clip(content, 80), 'line')}`;
}

// ------------------------------------------------------------------------------------------------------ boxes

/** The width of a box without a terminal; on one, boxes fit its columns up to {@link MAX_WIDTH}. */
export const DEFAULT_WIDTH = 80;
const MAX_WIDTH = 100;
/** Narrower than this a box cannot hold a word; it is drawn this wide and the terminal wraps it. */
const MIN_WIDTH = 24;
const TAB_STOP = 4;

/** A line of a box's body: untrusted text (escaped by {@link box}) and the style of the whole line. */
export interface BoxLine {
  text: string;
  style?: Style;
}

/** The width of the chat's boxes on a terminal of `columns` (unknown without one). */
export function boxWidth(columns: number | undefined): number {
  if (columns === undefined || !Number.isFinite(columns) || columns <= 0) return DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, Math.floor(columns)));
}

/** Letters a terminal draws two columns wide: East Asian wide and fullwidth forms, and emoji. */
const WIDE =
  /\p{Emoji_Presentation}|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
/** Marks drawn on the letter before them. */
const ZERO = /[\p{Mn}\p{Me}]/u;

/** The columns one character takes on a terminal. */
function charWidth(c: string): number {
  if (ZERO.test(c)) return 0;
  return WIDE.test(c) ? 2 : 1;
}

/** The columns `text` (already made visible: no control characters) takes on a terminal. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const c of text) width += charWidth(c);
  return width;
}

/** Tabs expanded to the next stop of {@link TAB_STOP} columns, so a box's right border stays in place. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let column = 0;
  for (const c of line) {
    if (c === '\t') {
      const pad = TAB_STOP - (column % TAB_STOP);
      out += ' '.repeat(pad);
      column += pad;
    } else {
      out += c;
      column += charWidth(c);
    }
  }
  return out;
}

/**
 * Cuts one visible line into pieces of at most `width` columns, at the last space of a piece when there is one in
 * its second half (the space is dropped), else mid-word.
 */
export function wrap(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  const pieces: string[] = [];
  let chars = [...line];
  while (chars.length > 0) {
    let used = 0;
    let end = 0;
    while (end < chars.length && used + charWidth(chars[end]!) <= width) used += charWidth(chars[end++]!);
    if (end === chars.length) {
      pieces.push(chars.join(''));
      break;
    }
    if (end === 0) end = 1; // a letter wider than the box: one per piece
    const space = chars.lastIndexOf(' ', end);
    const cut = space > end / 2 ? space : end;
    pieces.push(chars.slice(0, cut).join(''));
    chars = chars.slice(space === cut ? cut + 1 : cut);
  }
  return pieces;
}

/** `text` cut to `width` columns, with an ellipsis when cut. */
function fit(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const c of text) {
    if (used + charWidth(c) > width - 1) break;
    out += c;
    used += charWidth(c);
  }
  return `${out}…`;
}

/**
 * A titled box around untrusted text, `width` columns wide: the title in the top border, every line of the body
 * escaped (`visible`, tabs expanded), wrapped to fit and framed by `│` on both sides, so no line of a plan or a
 * call can pass for the chat's own (an approval outcome, a tool line, the question).
 * @param title the box's title (one line; cut to fit)
 * @param body the body's lines, each with an optional style (applied only when `color`)
 * @param width the box's width in columns
 * @param color whether styles are applied
 */
export function box(title: string, body: readonly BoxLine[], width = DEFAULT_WIDTH, color = false): string {
  const inner = Math.max(1, width - 4);
  const name = fit(visible(title, 'line'), Math.max(1, width - 6));
  const top = `┌─ ${name} ${'─'.repeat(Math.max(0, width - 5 - displayWidth(name)))}┐`;
  const rows: string[] = [];
  for (const line of body) {
    const shown = visible(expandTabs(line.text), 'line');
    for (const piece of wrap(shown, inner)) {
      const padded = `${piece}${' '.repeat(inner - displayWidth(piece))}`;
      rows.push(`│ ${line.style ? paint(line.style, padded, color) : padded} │`);
    }
  }
  return [top, ...rows, `└${'─'.repeat(width - 2)}┘`].join('\n');
}

/** Text as the lines of a box's body, in one style. */
export function bodyLines(text: string, style?: Style): BoxLine[] {
  return text.split('\n').map((line) => (style ? { text: line, style } : { text: line }));
}

/**
 * The body of a plan's card: the plan without the heading its title came from (when the plan starts with it),
 * so the title is not shown twice.
 * @param title the card's title
 * @param markdown the plan
 */
export function planBody(title: string, markdown: string): string {
  const lines = markdown.trimEnd().split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  const heading = first === -1 ? null : /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(lines[first]!);
  if (heading?.[1]?.trim() !== title) return lines.join('\n');
  let next = first + 1;
  while (next < lines.length && lines[next]!.trim() === '') next++;
  return lines.slice(next).join('\n');
}
