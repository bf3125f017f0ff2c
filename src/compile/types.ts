/**
 * The pure data model of the policy language: what parsing, validation, compiling and linting produce.
 * Engine, host and CLI import these types; this file has no runtime imports.
 *
 * Semantics are fixed by the policy language, docs/reference/policy-language.md (resolution order, ceiling composition, `override`).
 * @module
 */

/** The mode of a session with no policy. Reserved: no document may define it. */
export const DEFAULT_MODE = 'default';

/** A rule's verdict for a tool. Restrictiveness: deny > ask > allow. */
export type Decision = 'allow' | 'deny' | 'ask';

/**
 * A tool's declared behaviour, by the short names of MCP `ToolAnnotations`. Absent hints take MCP's defaults:
 * readOnly false, destructive true unless read-only, idempotent false, openWorld true.
 */
export interface Hints {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

/** A 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/** A source range; `end` is exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** A JSON path into a document, for example `['tools', 'web_*']`. */
export type JsonPath = (string | number)[];

export type Severity = 'error' | 'warning' | 'info';

/** One finding of parsing, validation or lint. Bad user input becomes diagnostics, never a throw. */
export interface Diagnostic {
  /** Stable, kebab-case rule id, for example `unknown-key` or `conflicting-globs`. */
  code: string;
  severity: Severity;
  /** One lowercase sentence, no final period; user values in backticks. */
  message: string;
  /** Stable camelCase id of the message template, for tests. */
  messageId?: string;
  /** The file as given by the user, or null for an inline document without one. */
  file: string | null;
  path: JsonPath;
  range?: Range;
  /** Advice on how to fix it. */
  help?: string;
}

/** Where a rule came from. Positions are null where none applies (the built-in default). */
export interface RuleRef {
  /** The selector as written (`write`, `web_*`, `effects.readOnly`), or `default`. */
  selector: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

/** What `decide()` answers: the decision, the rule's own reason if it has one, and the rule that decided. */
export interface DecideResult {
  decision: Decision;
  reason?: string;
  rule: RuleRef;
}

/**
 * The OS sandbox a mode runs program-running tools under (`sandbox:` in a document): `read-only`, or `none`
 * (unsandboxed, as in the default mode).
 */
export type SandboxKind = 'read-only' | 'none';

/** A mode's composed `sandbox` setting and the document key that set it. */
export interface SandboxSetting {
  readonly kind: SandboxKind;
  /** Where it is written: selector `sandbox` with the key's file:line:column. */
  readonly rule: RuleRef;
}

/** One mode, compiled from every document that names it. */
export interface CompiledPolicy {
  readonly mode: string;
  readonly description?: string;
  /** The prompt section: the documents' sections joined in load order. */
  readonly section: string;
  /**
   * The hints a call to `name` that declares none is decided with: its tool catalog's (the built-in tools
   * always, with their own annotations); undefined means MCP's defaults. A hand-made policy may omit it.
   */
  hintsOf?(name: string): Hints | undefined;
  /**
   * The decision for a tool, memoised per (name, effective hints) and frozen; without `hints`, the catalogued
   * tool's ({@link CompiledPolicy.hintsOf}).
   */
  decide(name: string, hints?: Hints): DecideResult;
  /** Visibility = the decision is not deny. Same table as `decide`. */
  visible(name: string, hints?: Hints): boolean;
  /**
   * The documents that compose this mode, in load order, after `override` (set by `compilePolicies`; a
   * hand-made policy, such as the engine's fail-closed one, may omit it).
   */
  readonly documents?: readonly CompiledDocument[];
  /**
   * The decision for one call, by name and then by the deciding rule's `commands` and `paths` patterns. A policy
   * without argument rules answers `decide(name, hints)`. Optional: a hand-made policy decides by name only.
   */
  decideCall?(call: CallInput, options?: DecideCallOptions): CallDecision;
  /**
   * The sandbox the mode's program-running tools run under, composed over its documents as a ceiling (`read-only`
   * beats `none`); absent when no document sets one (then they run unsandboxed). A hand-made policy may omit it.
   */
  readonly sandbox?: SandboxSetting;
  /**
   * The sandbox a call of `name` runs under: the mode's `sandbox` setting for a tool that runs programs (`bash`),
   * undefined for any other tool or when the mode sets none. Optional: a hand-made policy requires no sandbox.
   */
  sandboxFor?(name: string): SandboxSetting | undefined;
}

/** One call: the tool's name, its arguments and its declared hints. */
export interface CallInput {
  name: string;
  arguments?: unknown;
  hints?: Hints;
}

/** Options of `decideCall`. */
export interface DecideCallOptions {
  /**
   * Resolves path arguments against the workspace. Default: lexical only, with no workspace (relative paths are
   * workspace-relative, every absolute path is outside). Hosts pass `fsPathResolver(workspace)`.
   */
  resolvePath?: PathResolver;
  /**
   * Asked before a command pattern's allow or ask lets a program run: a reason to withhold it, or undefined. git
   * runs programs that the repository's own configuration names, so its allow holds only in a repository that
   * names none. Default: no check (the decision judges the text alone). Hosts pass `fsProgramCheck(workspace)`.
   */
  checkProgram?: ProgramCheck;
}

/**
 * Why a program that a pattern allowed must not run in this workspace, or undefined when it runs only what its
 * command line says.
 */
export type ProgramCheck = (program: string) => string | undefined;

/** How one simple command of a script was decided. */
export interface CommandDecision {
  text: string;
  decision: Decision;
  /** The tool rule that judged it. */
  rule: RuleRef;
  /** The pattern that matched it, with its location. */
  pattern?: RuleRef;
  /** Why it could not be analysed, when it could not. */
  note?: string;
}

/** What `decideCall` answers: the name-level result plus what the arguments decided. */
export interface CallDecision extends DecideResult {
  /** The command or path that decided, when arguments did. */
  subject?: string;
  /** The deciding pattern with its location, when a pattern decided. */
  pattern?: RuleRef;
  /** Why the subject could not be analysed, or how a path resolved. */
  note?: string;
  /** Set when the subject could not be analysed, so the decision failed closed. */
  unanalysable?: true;
  /** Set when a pattern allowed the subject but the workspace check withheld it (`note` says why). */
  withheld?: true;
  /**
   * The tool rule that has no pattern for `subject`, when the rest of the document (another rule, or the mode's
   * default: `rule`) decided for it.
   */
  unmatched?: RuleRef;
  /** For a script: its simple commands as the deciding document judged them. */
  commands?: CommandDecision[];
}

/** One form of a resolved path. */
export interface PathForm {
  /** The absolute path. */
  readonly absolute: string;
  /** The workspace-relative path (`.` for the root) when the path is inside the workspace. */
  readonly relative?: string;
}

/** A call's path, resolved. */
export interface ResolvedPath {
  /** The path as written, normalised lexically. */
  readonly written: PathForm;
  /**
   * Where the kernel lands: every symlink replaced by its target as the walk meets it, the missing rest appended
   * (the written form when nothing is known).
   */
  readonly target: PathForm;
}

/**
 * Resolves a path argument against the workspace. Answers `{unresolved: why}` (or undefined, with no reason) for
 * a path that cannot be resolved safely: a `..` after a folder that does not exist, a symlink loop, an unreadable
 * link. Such a path is denied.
 */
export type PathResolver = (path: string) => ResolvedPath | { readonly unresolved: string } | undefined;

export type { PolicyDocument } from './language/schema-types.generated.js';
import type { PolicyDocument } from './language/schema-types.generated.js';

/** The short names of the four MCP hints, in their canonical order (ties among `effects` resolve in it). */
export type HintName = 'readOnly' | 'destructive' | 'idempotent' | 'openWorld';

/** Hints with MCP's defaults applied: every field set. */
export type EffectiveHints = Readonly<Record<HintName, boolean>>;

/** A validated document with its source, as loading produces it and compiling consumes it. */
export interface SourceDocument {
  /** The file as given by the user, or null for an inline document. */
  file: string | null;
  document: PolicyDocument;
  /** The range of the value at a JSON path (closest parent when missing). */
  locate(path: JsonPath): Range | undefined;
  /** The range of the key at a JSON path, when known. */
  keyRange?(path: JsonPath): Range | undefined;
}

/** One `tools` alternative of a compiled document (a braced selector gives several). */
export interface CompiledRule {
  readonly kind: 'tool';
  /** The selector as written under `tools:`. */
  readonly selector: string;
  /** This alternative after brace expansion. */
  readonly pattern: string;
  /**
   * The name-level decision: the base, or for a rule without one the least restrictive of its patterns. A call
   * with arguments is decided by `decideCall`, which applies the patterns.
   */
  readonly decision: Decision;
  readonly reason?: string;
  /**
   * The base decision, when the rule has one (a rule with argument patterns may omit it and then abstains on
   * calls no pattern matches).
   */
  readonly base?: Decision;
  /** The rule's argument patterns: `commands`, `paths`, or both; absent for a name-only rule. */
  readonly arguments?: readonly ArgumentTable[];
  readonly specificity: number;
  readonly isGlob: boolean;
  /** The exact tool name when `isGlob` is false (the pattern unescaped); undefined for a glob. */
  readonly name?: string | undefined;
  /** The literal text every matching name starts with. */
  readonly prefix: string;
  /** Position among the document's `tools` entries (document order). */
  readonly order: number;
  /** `['tools', selector]`. */
  readonly path: JsonPath;
  /** Whether this alternative matches a tool name (a method: call it on the rule). */
  match(name: string): boolean;
  /** The rule reference reported by `decide` (computed on first use). */
  readonly ref: RuleRef;
}

/** One `effects` entry of a compiled document. */
export interface CompiledEffect {
  readonly kind: 'effect';
  readonly hint: HintName;
  readonly decision: Decision;
  readonly reason?: string;
  /** `['effects', hint]`. */
  readonly path: JsonPath;
  readonly ref: RuleRef;
}

/** The `default` of a compiled document. */
export interface CompiledDefault {
  readonly kind: 'default';
  readonly decision: Decision;
  readonly path: JsonPath;
  readonly ref: RuleRef;
}

/** Anything in a document that can decide. */
export type CompiledEntry = CompiledRule | CompiledEffect | CompiledDefault;

/** One document, compiled for resolution (see `resolveInDocument`). */
export interface CompiledDocument {
  readonly source: SourceDocument;
  readonly mode: string;
  readonly override: boolean;
  /** Every `tools` alternative, in document order. */
  readonly rules: readonly CompiledRule[];
  /** Plain-name alternatives by name, in document order. */
  readonly exact: ReadonlyMap<string, readonly CompiledRule[]>;
  /** Glob alternatives, most specific first, then in document order. */
  readonly globs: readonly CompiledRule[];
  /**
   * Glob alternatives by their literal prefix (the text every name they match starts with), in the order of
   * `globs`: a name is matched only against the globs filed under one of its own prefixes.
   */
  readonly globsByPrefix: ReadonlyMap<string, readonly CompiledRule[]>;
  /** The distinct lengths of those prefixes, ascending. */
  readonly prefixLengths: readonly number[];
  /** Whether some rule has `commands` or `paths` patterns (then a call's arguments can change its decision). */
  readonly hasArguments: boolean;
  /** In canonical hint order. */
  readonly effects: readonly CompiledEffect[];
  readonly default?: CompiledDefault;
  /** Selectors whose glob syntax is invalid (lint reports them; compiling goes on). */
  readonly selectorErrors: readonly { selector: string; path: JsonPath; error: string }[];
}

/** One argument pattern of a rule, compiled. */
export interface ArgumentPattern {
  /** The pattern as written. */
  readonly source: string;
  readonly decision: Decision;
  readonly reason?: string;
  /** Count of literal characters. */
  readonly specificity: number;
  /** Position among the table's patterns (document order). */
  readonly order: number;
  /** `['tools', selector, 'commands' | 'paths', source]`. */
  readonly path: JsonPath;
  /** The pattern's location, computed on first use (`selector` is the pattern as written). */
  readonly ref: RuleRef;
  /** Why the pattern is invalid, when it is (lint reports it; it matches nothing). */
  readonly error?: string;
}

/** A rule's `commands:` or `paths:` table. */
export interface ArgumentTable {
  readonly kind: 'commands' | 'paths';
  /** The call argument it looks at (`command` or `path` unless `argument:` names another). */
  readonly argument: string;
  /** In document order. */
  readonly patterns: readonly ArgumentPattern[];
}

/** One subject of a call and how one rule's table decides it. */
export interface SubjectVerdict {
  /** The simple command's text, or the path as written. */
  readonly subject: string;
  /** Undefined when the rule abstains on it. */
  readonly decision?: Decision;
  /** True when the rest of the policy must decide it too (no pattern matched a rule without a base). */
  readonly abstains: boolean;
  /** The deciding pattern, when one matched. */
  readonly pattern?: ArgumentPattern;
  /** Why it could not be analysed, or another note on how it was decided (outside the workspace). */
  readonly note?: string;
  /** Set when the subject could not be analysed (and so was decided fail-closed). */
  readonly unanalysable?: true;
  /**
   * The program, when a pattern allowed or asked for a command whose program reads the workspace's configuration
   * (git): the call asks `checkProgram` about it before the verdict stands.
   */
  readonly program?: string;
  /** Set when the workspace check withheld a pattern's allow or ask. */
  readonly withheld?: true;
}
