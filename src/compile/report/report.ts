/**
 * The shapes of what `dsh-mode lint` and `dsh-mode check` report, as data and as their `--format json` output.
 * The JSON shapes are a stable contract (CI and editors parse them): fields are only ever added, never renamed or
 * removed. Types only: the CLI builds and prints them.
 * @module
 */
import type { Decision, Diagnostic, Severity } from '../types.js';

/** What `dsh-mode lint` found. */
export interface LintReport {
  /** Every finding, sorted by file, position and code. */
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  infoCount: number;
  /** The policy files that were read, in load order. */
  files: string[];
  /** What was not checked, for people (printed on stderr, never in a machine format): unread subfolders. */
  notes?: string[];
}

/** One diagnostic of `lint --format json`. Positions are 1-based, end exclusive; 1:1 for a file-level finding. */
export interface JsonDiagnostic {
  file: string | null;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  /** The rule id (the diagnostic's code), for example `unknown-key` or `conflicting-globs`. */
  rule: string;
  message: string;
  /** How to fix it, when the rule says. */
  help?: string;
}

/** The whole output of `lint --format json`. */
export interface JsonLintOutput {
  diagnostics: JsonDiagnostic[];
  errorCount: number;
  warningCount: number;
  infoCount: number;
}

/** The output of `check --format json`. */
export interface JsonCheckOutput {
  mode: string;
  tool: string;
  decision: Decision;
  visible: boolean;
  reason: string | null;
  rule: JsonRuleRef;
  /** A did-you-mean when no rule names the tool and it is no known tool (`no rule names \`wrte\`; …`). */
  hint?: string;
  /** With `--args`: the command or path that decided (null when a name-only rule decided). */
  subject?: string | null;
  /** With `--args`: the deciding pattern, when one decided. */
  pattern?: JsonRuleRef;
  /** With `--args`: the gate's reason, quoting the subject. */
  message?: string;
  /** With `--args` for a script: one entry per simple command. */
  commands?: { text: string; decision: Decision; rule: JsonRuleRef; pattern?: JsonRuleRef; note?: string }[];
  /**
   * For a tool that runs programs (`bash`) whose call is not denied: the OS sandbox it runs in (`read-only` or
   * `none`) and the mode's `sandbox` key that sets it (null when no document sets one).
   */
  sandbox?: { kind: 'read-only' | 'none'; rule: JsonRuleRef | null };
}

/** A rule or pattern with its location. */
export interface JsonRuleRef {
  selector: string;
  file: string | null;
  line: number | null;
  column: number | null;
}
