/**
 * The pure data model of the policy language: what parsing, validation, compiling and linting produce.
 * Engine, host and CLI import these types; this file has no runtime imports.
 *
 * Semantics are fixed by DESIGN.md section 2 (resolution order, ceiling composition, `override`).
 * @module
 */

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

/** One mode, compiled from every document that names it. */
export interface CompiledPolicy {
  readonly mode: string;
  readonly description?: string;
  /** The prompt section: the documents' sections joined in load order. */
  readonly section: string;
  /** The decision for a tool. Memoised per (name, effective hints): the hot path is one map lookup. */
  decide(name: string, hints?: Hints): DecideResult;
  /** Visibility = the decision is not deny. Same table as `decide`. */
  visible(name: string, hints?: Hints): boolean;
}
