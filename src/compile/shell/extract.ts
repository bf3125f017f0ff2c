/**
 * The analyser: a shell script → every simple command it runs, its redirections, and the reasons it cannot be
 * fully explained. It walks the whole tree the parser gives (lists, pipelines, `$(…)`, backticks, `<(…)`,
 * subshells, groups, `if`/`for`/`while`/`until`/`case`/`select` bodies, `[[ ]]` operands, here-document bodies)
 * and the strings and command lines wrappers run (`bash -c`, `eval`, `find -exec`, `xargs`, …).
 *
 * Contract: it never throws and never drops a command it saw; whatever it does not model adds a reason to
 * `unanalysable`, and a script with any reason must never be allowed. It over-approximates where that fails
 * closed (a `command -v`, an `if` branch that never runs, `xargs` with empty input are still listed).
 *
 * The parser is `unbash`; only this file and `words.ts` know its types.
 */
import { parse } from 'unbash';
import type * as U from 'unbash';
import { readWrapper, isInterpreter, isFailure } from './wrappers.js';
import { PLAIN_WORD, toShellWord, walkWordParts, wordShape, type PartVisitor } from './words.js';
import type {
  ScriptAnalysis,
  ShellRedirect,
  ShellSpan,
  ShellWord,
  SimpleCommand,
  UnanalysableKind,
  UnanalysableReason,
} from './types.js';

/** Deeper nesting (`bash -c "eval '…'"`, `$( $( … ) )`) is unanalysable rather than walked. */
export const MAX_NESTING = 16;
/** Longer scripts are unanalysable rather than parsed. */
export const MAX_SCRIPT_LENGTH = 64 * 1024;

/** Where the walk is: the source the parser's offsets index, and how those map to the top-level script. */
interface Frame {
  readonly source: string;
  /** When set, every offset in this frame maps to this span of the top-level script (a string run as a script). */
  readonly outer?: { start: number; end: number };
  readonly depth: number;
  readonly via: readonly string[];
  readonly parent?: number;
  /** The label in messages for a frame that is a string run as a script (`bash -c`). */
  readonly label?: string;
  /**
   * `sh` for a string that a POSIX shell runs (`sh -c`, `watch`, `flock -c`): parsed as bash, which agrees with
   * dash except where bash has syntax of its own; those places are unanalysable there.
   */
  readonly dialect?: 'sh';
}

/**
 * The offsets of a command's words in their frame's source, two per word (`[pos0, end0, pos1, end1, …]`): kept
 * beside the words, so the words themselves are the command's `words` as they are, with no copies.
 */
type Offsets = number[];

/**
 * The offsets of a command's words: as given (a command a wrapper runs), or read from the parser's command (its
 * name, then the words and assignments among its suffix).
 */
function offsetsOf(located: Offsets | U.Command): Offsets {
  if (Array.isArray(located)) return located;
  const at: Offsets = [];
  if (located.name) at.push(located.name.pos, located.name.end);
  for (const item of located.suffix)
    if (item.type === 'Word' || item.type === 'Assignment') at.push(item.pos, item.end);
  return at;
}

const OUTPUT_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
/** Paths bash opens as network sockets in a redirection. */
const NETWORK_PATH = /^\/dev\/(?:tcp|udp)\//;

/** Builtins that change how later commands resolve or run, or run code of their own (`compgen -C`). */
export const SHELL_STATE: ReadonlySet<string> = new Set([
  'set',
  'shopt',
  'hash',
  'source',
  '.',
  'trap',
  'enable',
  'fc',
  'unalias',
  'ulimit',
  'umask',
  'compgen',
  'complete',
  'compopt',
  'bind',
]);
/** Builtins that assign variables. */
export const ASSIGNING: ReadonlySet<string> = new Set([
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'read',
  'mapfile',
  'readarray',
  'getopts',
  'unset',
  'let',
]);

class Walker implements PartVisitor {
  readonly commands: SimpleCommand[] = [];
  readonly redirects: ShellRedirect[] = [];
  readonly reasons: UnanalysableReason[] = [];
  private readonly lineStarts: number[] = [0];
  /** Inside a compound whose stdin is a here-document or here-string. */
  private docStdin = 0;
  /** Inside a pipeline element after the first: stdin is the previous command's output. */
  private pipedStdin = 0;

  constructor(private readonly top: string) {
    for (let i = top.indexOf('\n'); i >= 0; i = top.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  span(frame: Frame, pos: number, end: number): ShellSpan {
    const start = frame.outer ? frame.outer.start : pos;
    const stop = frame.outer ? frame.outer.end : end;
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= start) lo = mid;
      else hi = mid - 1;
    }
    return { start, end: stop, line: lo + 1, column: start - this.lineStarts[lo]! + 1 };
  }

  fail(kind: UnanalysableKind, message: string, frame: Frame, pos: number, end = pos): void {
    const where = frame.label ? ` (inside ${frame.label})` : '';
    this.reasons.push({ kind, message: message + where, span: this.span(frame, pos, end) });
  }

  // ---- scripts and compound commands ----

  script(script: U.Script | undefined, frame: Frame, pos: number, end: number): void {
    if (script === undefined) {
      this.fail('parse-error', 'a substitution the parser could not read', frame, pos, end);
      return;
    }
    const parsed = script as U.ParsedScript;
    let inner = frame;
    // A script with a decoded source of its own (escaped backticks) has offsets into that source.
    if (parsed.source !== undefined && parsed.source !== frame.source)
      inner = { ...frame, source: parsed.source, outer: frame.outer ?? { start: pos, end } };
    // The first error is the one a user can act on; the rest follow from it.
    const error = parsed.errors?.[0];
    if (error)
      this.fail('parse-error', `the shell cannot parse this script: ${error.message}`, inner, error.pos);
    this.statements(parsed.commands, inner);
  }

  statements(list: readonly U.Statement[], frame: Frame): void {
    for (const st of list) this.node(st.command, frame);
  }

  node(node: U.PipelineNode | U.AndOr, frame: Frame): void {
    switch (node.type) {
      case 'Command':
        return this.simple(node, frame);
      case 'Pipeline':
        // Without bash's `time` keyword, `time -o f cmd` runs the program `time`, which writes `f`.
        if (frame.dialect === 'sh' && node.prefixes.some((p) => p.type === 'Time'))
          this.fail(
            'wrapper',
            '`time` is a program, not a keyword, in a POSIX shell',
            frame,
            node.pos,
            node.end,
          );
        node.commands.forEach((c, i) => {
          if (i > 0) this.pipedStdin++;
          this.node(c, frame);
          if (i > 0) this.pipedStdin--;
        });
        return;
      case 'AndOr':
        for (const c of node.commands) this.node(c, frame);
        return;
      case 'If':
        this.statements(node.clause.commands, frame);
        this.statements(node.then.commands, frame);
        for (const e of node.elif) {
          this.statements(e.clause.commands, frame);
          this.statements(e.then.commands, frame);
        }
        if (node.else) this.statements(node.else.commands, frame);
        return;
      case 'For':
      case 'Select':
        this.fail(
          'assignment',
          `\`${node.type === 'For' ? 'for' : 'select'}\` assigns the variable \`${node.name.text}\``,
          frame,
          node.pos,
          node.end,
        );
        for (const w of node.wordlist ?? []) this.word(w, frame);
        this.statements(node.body.commands, frame);
        return;
      case 'ArithmeticFor':
        // A POSIX shell reads `((cmd))` as two subshells running `cmd`.
        if (frame.dialect === 'sh')
          this.fail(
            'unsupported',
            '`((…))` runs as nested subshells in a POSIX shell',
            frame,
            node.pos,
            node.end,
          );
        this.arithmetic(
          arithmeticForHeader(frame.source.slice(node.pos, node.end)),
          frame,
          node.pos,
          node.end,
        );
        this.statements(node.body.commands, frame);
        return;
      case 'While':
        this.statements(node.clause.commands, frame);
        this.statements(node.body.commands, frame);
        return;
      case 'Subshell':
      case 'BraceGroup':
        this.statements(node.body.commands, frame);
        return;
      case 'Case':
        this.word(node.word, frame);
        for (const item of node.items) {
          for (const p of item.pattern) this.word(p, frame);
          this.statements(item.body.commands, frame);
        }
        return;
      case 'TestCommand':
        this.test(node.expression, frame);
        return;
      case 'ArithmeticCommand':
        // A POSIX shell reads `((cmd))` as two subshells running `cmd`.
        if (frame.dialect === 'sh')
          this.fail(
            'unsupported',
            '`((…))` runs as nested subshells in a POSIX shell',
            frame,
            node.pos,
            node.end,
          );
        this.arithmetic(node.body, frame, node.pos, node.end);
        return;
      case 'Redirected': {
        const doc = node.redirects.some((r) => r.type === 'HereDoc' || r.type === 'HereString');
        if (doc) this.docStdin++;
        this.node(node.command, frame);
        if (doc) this.docStdin--;
        this.redirections(node.redirects, frame, undefined);
        return;
      }
      case 'Function':
        this.fail('definition', `a function definition: \`${node.name.text}\``, frame, node.pos, node.end);
        this.functionBody(node.body, frame);
        return;
      case 'Coproc':
        this.fail(
          'coproc',
          '`coproc` runs a command in the background with pipes this analyser does not model',
          frame,
          node.pos,
          node.end,
        );
        this.functionBody(node.body, frame);
        return;
      default: {
        const unknown = node as { type: string; pos: number; end: number };
        this.fail(
          'unsupported',
          `a construct this analyser does not model: ${unknown.type}`,
          frame,
          unknown.pos,
          unknown.end,
        );
      }
    }
  }

  /** Commands inside a definition are still listed, so deny patterns see them. */
  functionBody(body: U.CommandNode | U.CompoundList, frame: Frame): void {
    if (body.type === 'CompoundList') this.statements(body.commands, frame);
    else this.node(body, frame);
  }

  test(expr: U.TestExpression, frame: Frame): void {
    switch (expr.type) {
      case 'TestUnary':
        if (expr.operator === '-v' || expr.operator === '-R')
          this.subscript(expr.operand.text, frame, expr.operand.pos, expr.operand.end);
        this.word(expr.operand, frame);
        return;
      case 'TestBinary':
        if (/^-(?:eq|ne|lt|le|gt|ge)$/.test(expr.operator)) {
          this.arithmeticOperand(expr.left, frame);
          this.arithmeticOperand(expr.right, frame);
        }
        this.word(expr.left, frame);
        this.word(expr.right, frame);
        return;
      case 'TestLogical':
        for (const o of expr.operands) this.test(o, frame);
        return;
      case 'TestNot':
        this.test(expr.operand, frame);
        return;
      case 'TestGroup':
        this.test(expr.expression, frame);
        return;
    }
  }

  /**
   * Arithmetic evaluates array subscripts, so even a quoted `a[$(cmd)]` runs `cmd`: not modelled. It also evaluates
   * the value of every variable it names as an expression of its own, and values are the model's to choose (`$_`
   * is the previous command's last argument, `BASH_REMATCH` what `[[ =~ ]]` matched): `echo 'a[$(cmd)]'; (( _ ))`
   * runs `cmd`. So arithmetic that names a variable is not modelled either; numbers alone are fine.
   */
  arithmetic(text: string, frame: Frame, pos: number, end: number): void {
    if (/\$\((?!\()|`|[<>]\(/.test(text))
      this.fail(
        'arithmetic',
        `a command substitution inside an arithmetic expression: \`${text.trim()}\``,
        frame,
        pos,
        end,
      );
    // A `$((` inside arithmetic (nested, or in an operand of `[[ -eq ]]`, `let`): bash may read it as `$(` and a subshell.
    else if (text.includes('$(('))
      this.fail(
        'arithmetic',
        `an arithmetic expansion inside an arithmetic context: \`${text.trim()}\``,
        frame,
        pos,
        end,
      );
    else if (namesVariable(text))
      this.fail(
        'arithmetic',
        `an arithmetic expression that reads a variable, whose value bash evaluates as an expression (and runs the substitutions in its subscripts): \`${text.trim()}\``,
        frame,
        pos,
        end,
      );
    // `(( PATH = 1 ))`, `i++`: arithmetic assigns too.
    if (/(?<![=!<>])=(?!=)|\+\+|--/.test(text))
      this.fail(
        'assignment',
        `an arithmetic expression assigns a variable: \`${text.trim()}\``,
        frame,
        pos,
        end,
      );
  }

  /**
   * `-v NAME[SUB]` evaluates `SUB` only: a plain name is just looked up. A name that is an expansion (`-v $_`) is
   * whatever the value holds, subscript included.
   */
  subscript(text: string, frame: Frame, pos: number, end: number): void {
    const open = text.indexOf('[');
    if (/\$\(|`/.test(text)) this.arithmetic(text, frame, pos, end);
    else if (text.includes('$'))
      this.fail(
        'arithmetic',
        `a variable test on a name that is an expansion, whose subscript bash evaluates: \`${text}\``,
        frame,
        pos,
        end,
      );
    else if (open >= 0) this.arithmetic(text.slice(open), frame, pos, end);
  }

  arithmeticOperand(word: U.Word, frame: Frame): void {
    this.arithmetic(word.text, frame, word.pos, word.end);
  }

  // ---- words ----

  /** Walks a word's parts for nested commands; returns the word dequoted. */
  word(word: U.Word, frame: Frame): ShellWord {
    const text = word.text;
    // Most words are plain: their value is their text, and nothing is nested in them. A glob alone is not known.
    const shape = wordShape(text);
    if (shape !== 0) return { text, value: text, known: shape === PLAIN_WORD };
    walkWordParts(word, this, frame);
    return toShellWord(word);
  }

  visitScript(script: U.Script | undefined, frame: Frame, pos: number, end: number): void {
    if (frame.depth >= MAX_NESTING) {
      this.fail('limit', `substitutions nested deeper than ${MAX_NESTING}`, frame, pos, end);
      return;
    }
    this.script(script, { ...frame, depth: frame.depth + 1 }, pos, end);
  }

  visitUnsupported(text: string, frame: Frame, pos: number, end: number): void {
    this.fail('unsupported', `a construct this analyser does not model: \`${text}\``, frame, pos, end);
  }

  visitArithmetic(text: string, frame: Frame, pos: number, end: number): void {
    this.arithmetic(text, frame, pos, end);
  }

  visitEvaluation(
    kind: 'unsupported' | 'assignment',
    message: string,
    frame: Frame,
    pos: number,
    end: number,
  ): void {
    this.fail(kind, message, frame, pos, end);
  }

  // ---- simple commands ----

  simple(cmd: U.Command, frame: Frame): void {
    const redirects: U.Redirection[] = [];
    for (const item of cmd.prefix) {
      if (item.type === 'Assignment') {
        this.fail('assignment', `the script assigns a variable: \`${item.text}\``, frame, item.pos, item.end);
        this.assignmentValue(item, frame);
      } else redirects.push(item);
    }
    const words: ShellWord[] = [];
    if (cmd.name) words.push(this.word(cmd.name, frame));
    for (const item of cmd.suffix) {
      if (item.type === 'Word') words.push(this.word(item, frame));
      else if (item.type === 'Assignment') words.push(this.assignmentWord(item, frame));
      else redirects.push(item);
    }
    const stdinDoc = redirects.some((r) => r.type === 'HereDoc' || r.type === 'HereString');
    if (redirects.length > 0) this.redirections(redirects, frame, words[0]);
    if (words.length === 0) return;
    this.command(words, cmd, frame, frame.via, frame.parent, stdinDoc, cmd.pos, cmd.end);
  }

  assignmentValue(a: U.Assignment, frame: Frame): ShellWord {
    if (a.value.type === 'ArrayValue') {
      for (const w of a.value.elements) this.word(w, frame);
      return { text: a.text, value: a.text, known: false };
    }
    const value = this.word(a.value, frame);
    return value;
  }

  assignmentWord(a: U.Assignment, frame: Frame): ShellWord {
    const value = this.assignmentValue(a, frame);
    const index = a.index ? this.word(a.index, frame) : undefined;
    const known = value.known && (index === undefined || index.known) && a.value.type !== 'ArrayValue';
    const lhs = a.index ? `${a.name}[${index?.value ?? ''}]` : a.name;
    return { text: a.text, value: `${lhs}${a.append ? '+=' : '='}${value.value}`, known };
  }

  /**
   * Records one command (`words` become its words as they are), then what it runs if it is a wrapper. `located`
   * gives the words' offsets (see {@link offsetsOf}); `pos`..`end` is the command's text.
   */
  command(
    words: readonly ShellWord[],
    located: Offsets | U.Command,
    frame: Frame,
    via: readonly string[],
    parent: number | undefined,
    stdinDoc: boolean,
    pos: number,
    end: number,
  ): void {
    const first = words[0]!;
    const written = first.value;
    const slash = written.lastIndexOf('/');
    const name = slash >= 0 ? written.slice(slash + 1) : written;
    const text = frame.source.slice(pos, end);
    const index = this.commands.length;
    const span = this.span(frame, pos, end);
    const record: { -readonly [K in keyof SimpleCommand]: SimpleCommand[K] } =
      slash >= 0 && first.known
        ? { name, path: written, words, text, span, via }
        : { name: first.known ? name : written, words, text, span, via };
    if (parent !== undefined) record.parent = parent;
    this.commands.push(record);
    if (!first.known) {
      const at = offsetsOf(located);
      this.fail('expansion', `a command name with an expansion: \`${first.text}\``, frame, at[0]!, at[1]!);
      return;
    }
    // The words' offsets, read when a check or a wrapper points into the words.
    let offsets: Offsets | undefined;
    const at = (k: number): number => (offsets ??= offsetsOf(located))[k]!;
    if (isInterpreter(name)) {
      if (stdinDoc || this.docStdin > 0)
        this.fail(
          'heredoc-interpreter',
          `a here-document or here-string fed to the interpreter \`${name}\``,
          frame,
          pos,
          end,
        );
      else if (this.pipedStdin > 0 && words.slice(1).every((w) => w.known && w.value.startsWith('-')))
        this.fail(
          'heredoc-interpreter',
          `the interpreter \`${name}\` reads its program from a pipe`,
          frame,
          pos,
          end,
        );
    }
    if (name === 'alias') this.fail('definition', `an alias definition: \`${text}\``, frame, pos, end);
    else if (SHELL_STATE.has(name))
      this.fail(
        'shell-state',
        `\`${name}\` changes how later commands resolve or run, or runs code of its own`,
        frame,
        pos,
        end,
      );
    else if (
      ASSIGNING.has(name) ||
      (name === 'printf' && words.some((w, i) => i > 0 && w.value.startsWith('-v'))) ||
      // `wait -p NAME` assigns the job's process ID to NAME (`wait -n -p PATH` clobbers PATH).
      (name === 'wait' && words.some((w, i) => i > 0 && (!w.known || /^-[^-]*p/.test(w.value))))
    )
      this.fail('assignment', `\`${name}\` assigns a variable`, frame, pos, end);
    // `test -v 'a[$(cmd)]'` evaluates the subscript, and with it the substitution.
    if (name === 'test' || name === '[' || name === 'wait')
      for (let k = 1; k < words.length; k++) {
        const w = words[k]!;
        if (!w.known) continue;
        if (/\$\(|`/.test(w.value)) this.arithmetic(w.value, frame, at(2 * k), at(2 * k + 1));
        else if (k > 1 && words[k - 1]!.value === '-v')
          this.subscript(w.value, frame, at(2 * k), at(2 * k + 1));
      }
    if (name === 'let')
      for (let k = 1; k < words.length; k++) this.arithmetic(words[k]!.text, frame, at(2 * k), at(2 * k + 1));

    const result = readWrapper(name, words);
    if (result === undefined) return;
    if (isFailure(result)) {
      const k = Math.min(result.at, words.length - 1);
      this.fail(result.kind, result.message, frame, at(2 * k), at(2 * k + 1));
      return;
    }
    const innerVia = [...via, name];
    for (const run of result) {
      if (run.kind === 'argv') {
        let inner: ShellWord[] = words
          .slice(run.from, run.to)
          .map((w) =>
            run.placeholder !== undefined && w.value.includes(run.placeholder) ? { ...w, known: false } : w,
          );
        let innerAt = (offsets ??= offsetsOf(located)).slice(2 * run.from, 2 * run.to);
        const lastEnd = at(2 * words.length - 1);
        if (run.from >= words.length) {
          inner = [{ text: 'echo', value: 'echo', known: true }];
          innerAt = [lastEnd, lastEnd];
        }
        if (run.appendsUnknown) {
          inner.push({ text: '<arguments from standard input>', value: '', known: false });
          innerAt.push(lastEnd, lastEnd);
        }
        if (inner.length === 0) throw new TypeError('a wrapper ran no words');
        const innerPos = innerAt[0]!;
        const innerEnd = innerAt[innerAt.length - 1]!;
        this.command(
          inner,
          innerAt,
          frame,
          innerVia,
          index,
          stdinDoc,
          innerPos,
          Math.max(innerEnd, innerPos),
        );
      } else {
        const parts = words.slice(run.from, run.to);
        const source = parts.map((w) => w.value).join(' ');
        if (parts.length === 0) throw new TypeError('a wrapper ran no words');
        const partsPos = at(2 * run.from);
        const partsEnd = at(2 * (run.from + parts.length) - 1);
        if (frame.depth >= MAX_NESTING) {
          this.fail('limit', `scripts nested deeper than ${MAX_NESTING}`, frame, partsPos, partsEnd);
          continue;
        }
        const inner: Frame = {
          source,
          outer: frame.outer ?? { start: partsPos, end: partsEnd },
          depth: frame.depth + 1,
          via: innerVia,
          parent: index,
          label: `the script of \`${name}\``,
          ...(name === 'bash' || (name === 'eval' && frame.dialect === undefined)
            ? {}
            : { dialect: 'sh' as const }),
        };
        this.script(parse(source), inner, 0, source.length);
      }
    }
  }

  // ---- redirections ----

  redirections(list: readonly U.Redirection[], frame: Frame, name: ShellWord | undefined): void {
    for (const r of list) {
      if (r.descriptor?.type === 'FileDescriptorVariable')
        this.fail(
          'assignment',
          `a redirection assigns the variable \`${r.descriptor.name}\``,
          frame,
          r.pos,
          r.end,
        );
      const fd = r.descriptor?.type === 'FileDescriptor' ? r.descriptor.value : undefined;
      if (r.type === 'HereDoc') {
        const delimiter = r.delimiter;
        if (delimiter && !delimiter.quoted) walkWordParts(r.body, this, frame);
        const target: ShellWord = { text: delimiter?.text ?? '', value: delimiter?.value ?? '', known: true };
        this.redirects.push({
          operator: r.operator,
          ...(fd === undefined ? {} : { fd }),
          target,
          output: false,
          accepted: true,
          span: this.span(frame, r.pos, r.end),
        });
        continue;
      }
      if (r.target === undefined) {
        this.fail('parse-error', `a redirection without a target`, frame, r.pos, r.end);
        continue;
      }
      const target = this.word(r.target, frame);
      let output = OUTPUT_OPERATORS.has(r.operator);
      let accepted = true;
      if (r.operator === '>&' || r.operator === '<&') {
        // `>&2`, `2>&-` duplicate or close a descriptor; `>&file` writes `file`.
        const fdTarget = target.known && /^(?:\d+-?|-)$/.test(target.value);
        if (!fdTarget) {
          output = r.operator === '>&';
          accepted = false;
        }
      }
      if (output) accepted = target.known && target.value === '/dev/null';
      // bash itself opens `/dev/tcp/HOST/PORT` and `/dev/udp/…` as network connections, for reading too; a
      // target whose value is not known could be one, unless it starts with a process substitution (`/dev/fd/N`).
      const unknown = !target.known && !/^[<>]\(/.test(target.text);
      const network =
        !output && accepted && r.operator !== '<<<' && (unknown || NETWORK_PATH.test(target.value));
      if (network) accepted = false;
      this.redirects.push({
        operator: r.operator,
        ...(fd === undefined ? {} : { fd }),
        target,
        output,
        accepted,
        span: this.span(frame, r.pos, r.end),
      });
      if (!accepted) {
        const who = name ? ` of \`${name.text}\`` : '';
        const what = !network
          ? 'writes'
          : target.known
            ? 'opens a network connection to'
            : 'reads a file not known before it runs,';
        this.fail(
          'redirect',
          `a redirection${who} that ${what} \`${target.text}\` (\`${frame.source.slice(r.pos, r.end)}\`)`,
          frame,
          r.pos,
          r.end,
        );
      }
    }
  }
}

/**
 * Whether arithmetic text names a variable: an identifier outside a number (`0x1f`, `16#ff` and `1e` in `2#1e`
 * are numbers; a letter or `_` anywhere else starts a name).
 */
function namesVariable(text: string): boolean {
  const body = text
    .replace(/^\$\(\(|^\$\[|\)\)$|\]$/g, '')
    .replace(/\b\d+#[0-9A-Za-z@_]+/g, '0')
    .replace(/\b0[xX][0-9A-Fa-f]+/g, '0');
  return /[A-Za-z_]/.test(body);
}

/** The `((…))` of `for ((…))`, without the keyword. */
function arithmeticForHeader(text: string): string {
  const open = text.indexOf('((');
  const close = text.indexOf('))', open);
  return open < 0 || close < 0 ? text : text.slice(open, close + 2);
}

/**
 * Analyses one shell script.
 * @param script the script text, as the shell would run it
 * @returns every simple command, every redirection, and the reasons it cannot be fully explained
 */
export function extractCommands(script: string): ScriptAnalysis {
  return analyse(script);
}

function analyse(script: string): ScriptAnalysis {
  const walker = new Walker(script);
  const frame: Frame = { source: script, depth: 0, via: [] };
  if (script.length > MAX_SCRIPT_LENGTH) {
    walker.fail('limit', `a script longer than ${MAX_SCRIPT_LENGTH} characters`, frame, 0, script.length);
  } else {
    let parsed: U.ParsedScript | undefined;
    try {
      parsed = parse(script);
    } catch (error) {
      walker.fail(
        'parse-error',
        `the shell parser failed: ${(error as Error).message}`,
        frame,
        0,
        script.length,
      );
    }
    if (parsed) walker.script(parsed, frame, 0, script.length);
  }
  return { commands: walker.commands, redirects: walker.redirects, unanalysable: walker.reasons };
}
