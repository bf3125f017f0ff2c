/**
 * A tool rule's argument patterns, compiled: the `commands:` and `paths:` tables, and how one table judges one
 * argument value.
 *
 * A table judges its argument as a list of subjects (one per simple command of a script, or the one path), each
 * with the decision of its winning pattern: the most specific match (count of literal characters), then the most
 * restrictive, then the first written. A subject no pattern matches gets the rule's base decision, or, for a rule
 * without one, abstains. What cannot be analysed (a missing or non-string argument, a script the analyser cannot
 * fully explain) is never allowed: it gets `ask` when the base is `allow`, otherwise the base; a rule without a
 * base answers `ask` and abstains too, so the rest of the policy also decides. A path that cannot be resolved
 * safely (see src/files/resolve-path.ts) is denied, with the resolver's reason.
 *
 * Nothing is memoised here: a script is analysed and matched on every call (tens of microseconds for a compound
 * command), and path judgements depend on the filesystem through the resolver.
 * @module
 */
import { BUILTIN_PATH_ARGUMENTS } from '../catalog/builtin-arguments.js';
import { judgeScript, type CommandRule, type ScriptCallbacks } from './command-table.js';
import { parseCommandPattern, type CommandPattern } from '../shell/index.js';
import { compilePathPattern, pickPathPattern, type PathPattern, type PathResolver } from './paths.js';
import { compareRestrictiveness } from './restrictiveness.js';
import type {
  ArgumentPattern,
  ArgumentTable,
  Decision,
  JsonPath,
  RuleRef,
  SourceDocument,
  SubjectVerdict,
} from '../types.js';

export type { SubjectVerdict };
import type { PatternValue, ToolRuleObject } from '../language/schema-types.generated.js';

/** The default argument of each kind, as the built-in tools name it. */
export const DEFAULT_ARGUMENT: Readonly<Record<ArgumentTable['kind'], string>> = Object.freeze({
  commands: 'command',
  paths: 'path',
});

/** What one table needs to judge a call. */
export interface JudgeContext {
  readonly resolvePath: PathResolver;
  /** The tool's name, for the built-in tools' argument defaults. */
  readonly tool: string;
}

class Pattern implements CommandRule {
  #ref: RuleRef | undefined;
  readonly reason?: string;
  readonly error?: string;
  /** A command pattern's parsed words (none for a path pattern, which its table compiles apart). */
  readonly command?: CommandPattern;
  constructor(
    readonly source: string,
    readonly decision: Decision,
    reason: string | undefined,
    readonly specificity: number,
    readonly order: number,
    readonly path: JsonPath,
    private readonly document: SourceDocument,
    error: string | undefined,
    command?: CommandPattern,
  ) {
    if (reason !== undefined) this.reason = reason;
    if (error !== undefined) this.error = error;
    if (command !== undefined) this.command = command;
  }

  get ref(): RuleRef {
    if (!this.#ref) {
      const range = this.document.keyRange?.(this.path) ?? this.document.locate(this.path);
      this.#ref = Object.freeze({
        selector: this.source,
        file: this.document.file,
        line: range?.start.line ?? null,
        column: range?.start.column ?? null,
      });
    }
    return this.#ref;
  }
}

/** A compiled table: the data of {@link ArgumentTable} and its judge. */
export abstract class Table implements ArgumentTable {
  abstract readonly kind: ArgumentTable['kind'];
  constructor(
    readonly argument: string,
    readonly patterns: readonly Pattern[],
    readonly base: Decision | undefined,
  ) {}

  /** Judges one call's arguments. */
  judge(args: unknown, context: JudgeContext): readonly SubjectVerdict[] {
    let value =
      args !== null && typeof args === 'object'
        ? (args as Record<string, unknown>)[this.argument]
        : undefined;
    if (value === undefined && this.kind === 'paths') {
      const builtin = BUILTIN_PATH_ARGUMENTS.get(context.tool);
      if (builtin?.argument === this.argument) value = builtin.default;
    }
    if (typeof value !== 'string') {
      const shown = value === undefined ? 'missing' : 'not a string';
      return [
        this.unanalysable(`(argument \`${this.argument}\`)`, `argument \`${this.argument}\` is ${shown}`),
      ];
    }
    return this.judgeText(value, context);
  }

  protected abstract judgeText(value: string, context: JudgeContext): readonly SubjectVerdict[];

  /** The fail-closed verdict for a subject that cannot be analysed. */
  unanalysable(subject: string, note: string): SubjectVerdict {
    if (this.base === undefined)
      return { subject, decision: 'ask', abstains: true, note, unanalysable: true };
    const decision = this.base === 'allow' ? 'ask' : this.base;
    return { subject, decision, abstains: false, note, unanalysable: true };
  }

  /** The verdict of the pattern at `index` (or of the base when -1). */
  protected verdictOf(subject: string, index: number, note?: string): SubjectVerdict {
    const pattern = index < 0 ? undefined : this.patterns[index]!;
    const out: { -readonly [K in keyof SubjectVerdict]: SubjectVerdict[K] } = pattern
      ? { subject, decision: pattern.decision, abstains: false, pattern }
      : this.base === undefined
        ? { subject, abstains: true }
        : { subject, decision: this.base, abstains: false };
    if (note !== undefined) out.note = note;
    return out;
  }
}

export class CommandTable extends Table implements ScriptCallbacks {
  readonly kind = 'commands' as const;

  /** The verdict of the pattern at `index` (or of the base when -1), for {@link judgeScript}. */
  verdict(subject: string, index: number, program?: string): SubjectVerdict {
    const v = this.verdictOf(subject, index) as { -readonly [K in keyof SubjectVerdict]: SubjectVerdict[K] };
    if (program !== undefined) v.program = program;
    return v;
  }

  protected judgeText(script: string): readonly SubjectVerdict[] {
    return judgeScript(script, this.patterns, this);
  }
}

class PathTable extends Table {
  readonly kind = 'paths' as const;
  constructor(
    argument: string,
    patterns: readonly Pattern[],
    base: Decision | undefined,
    private readonly compiled: readonly { pattern: PathPattern; decision: Decision }[],
  ) {
    super(argument, patterns, base);
  }

  protected judgeText(path: string, context: JudgeContext): readonly SubjectVerdict[] {
    const resolved = context.resolvePath(path);
    // Denied whatever the base: the tool could not open it as the gate saw it, and the kernel fails such a path.
    if (resolved === undefined || 'unresolved' in resolved) {
      const why = resolved?.unresolved ?? 'cannot be resolved';
      return [
        { subject: path, decision: 'deny', abstains: false, note: `the path ${why}`, unanalysable: true },
      ];
    }
    // An allow must match both forms, a deny fires on either: judge each, keep the more restrictive.
    const written = this.verdictOf(path, pickPathPattern(this.compiled, resolved.written));
    const same =
      resolved.target.absolute === resolved.written.absolute &&
      resolved.target.relative === resolved.written.relative;
    // Said without the absolute path: it would tell the model where the workspace is.
    const note =
      resolved.written.relative === undefined
        ? 'the path is outside the workspace'
        : resolved.target.relative === undefined
          ? 'it resolves outside the workspace, through a symbolic link'
          : undefined;
    if (same) return [note === undefined ? written : { ...written, note }];
    const target = this.verdictOf(path, pickPathPattern(this.compiled, resolved.target));
    const linkNote = `it resolves to \`${resolved.target.relative ?? resolved.target.absolute}\``;
    return [{ ...bothForms(written, target), note: note ?? linkNote }];
  }
}

/**
 * One verdict from the two forms of a path: a deny (or ask) on either holds; an allow needs both, so an allow on
 * one form and an abstention on the other abstains.
 */
function bothForms(a: SubjectVerdict, b: SubjectVerdict): SubjectVerdict {
  if (a.decision === undefined || b.decision === undefined) {
    const decided = a.decision === undefined ? b : a;
    if (decided.decision === undefined || decided.decision === 'allow')
      return { subject: a.subject, abstains: true };
    // A deny fires on either form; an ask on one form still lets the rest of the policy decide the other.
    return decided.decision === 'deny' ? decided : { ...decided, abstains: true };
  }
  return compareRestrictiveness(b.decision, a.decision) > 0 ? b : a;
}

/**
 * Compiles the argument tables of one rule object.
 * @param selector the rule's selector under `tools:`
 * @returns the tables (none for a name-only rule)
 */
export function compileArgumentTables(
  source: SourceDocument,
  selector: string,
  value: ToolRuleObject,
): Table[] {
  const tables: Table[] = [];
  for (const kind of ['commands', 'paths'] as const) {
    const map = value[kind];
    if (map === undefined) continue;
    const argument = value.argument ?? DEFAULT_ARGUMENT[kind];
    const patterns: Pattern[] = [];
    const compiled: { pattern: PathPattern; decision: Decision }[] = [];
    Object.keys(map).forEach((text, order) => {
      const { decision, reason } = patternVerdict(map[text]!);
      const path: JsonPath = ['tools', selector, kind, text];
      if (kind === 'paths') {
        const pattern = compilePathPattern(text);
        compiled.push({ pattern, decision });
        patterns.push(
          new Pattern(text, decision, reason, pattern.specificity, order, path, source, pattern.error),
        );
      } else {
        const command = parseCommandPattern(text);
        const error = text.trim() === '' ? 'empty command pattern' : undefined;
        patterns.push(
          new Pattern(text, decision, reason, command.specificity, order, path, source, error, command),
        );
      }
    });
    tables.push(
      kind === 'paths'
        ? new PathTable(argument, patterns, value.decision, compiled)
        : new CommandTable(argument, patterns, value.decision),
    );
  }
  return tables;
}

function patternVerdict(value: PatternValue): { decision: Decision; reason?: string } {
  if (typeof value === 'string') return { decision: value };
  return value.reason === undefined
    ? { decision: value.decision }
    : { decision: value.decision, reason: value.reason };
}
