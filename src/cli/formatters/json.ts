/**
 * The machine-readable outputs. Their shapes are a stable contract (CI and editors parse them): fields are only
 * ever added, never renamed or removed.
 * @module
 */
import type { Decision, Diagnostic, Severity } from '../../compile/types.js';
import type { CheckReport, FormatOptions, LintReport } from '../report.js';

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
  /** With `--args`: the command or path that decided (null when a name-only rule decided). */
  subject?: string | null;
  /** With `--args`: the deciding pattern, when one decided. */
  pattern?: JsonRuleRef;
  /** With `--args`: the gate's reason, quoting the subject. */
  message?: string;
  /** With `--args` for a script: one entry per simple command. */
  commands?: { text: string; decision: Decision; rule: JsonRuleRef; pattern?: JsonRuleRef; note?: string }[];
}

/** A rule or pattern with its location. */
export interface JsonRuleRef {
  selector: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

/**
 * Converts one diagnostic to its JSON form.
 * @param d the diagnostic
 * @returns the JSON record
 */
export function toJsonDiagnostic(d: Diagnostic): JsonDiagnostic {
  const start = d.range?.start ?? { line: 1, column: 1 };
  const end = d.range?.end ?? start;
  const out: JsonDiagnostic = {
    file: d.file,
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
    severity: d.severity,
    rule: d.code,
    message: d.message,
  };
  if (d.help !== undefined) out.help = d.help;
  return out;
}

/**
 * Formats a lint report as one line of JSON.
 * @param report the report
 * @returns the JSON text and a newline
 */
export function formatJson(report: LintReport, _options?: FormatOptions): string {
  const out: JsonLintOutput = {
    diagnostics: report.diagnostics.map(toJsonDiagnostic),
    errorCount: report.errorCount,
    warningCount: report.warningCount,
    infoCount: report.infoCount,
  };
  return `${JSON.stringify(out)}\n`;
}

/**
 * Formats a decided check as one line of JSON.
 * @param report a decided check report
 * @returns the JSON text and a newline
 */
export function formatCheckJson(report: Extract<CheckReport, { kind: 'decided' }>): string {
  const { selector, file, line, column } = report.rule;
  const out: JsonCheckOutput = {
    mode: report.mode,
    tool: report.tool,
    decision: report.decision,
    visible: report.visible,
    reason: report.reason,
    rule: { selector, file, line, column },
  };
  const args = report.arguments;
  if (args) {
    out.subject = args.subject;
    if (args.pattern) out.pattern = ref(args.pattern);
    out.message = args.message;
    if (args.commands) {
      out.commands = args.commands.map((c) => {
        const entry: NonNullable<JsonCheckOutput['commands']>[number] = {
          text: c.text,
          decision: c.decision,
          rule: ref(c.rule),
        };
        if (c.pattern) entry.pattern = ref(c.pattern);
        if (c.note !== undefined) entry.note = c.note;
        return entry;
      });
    }
  }
  return `${JSON.stringify(out)}\n`;
}

function ref(r: JsonRuleRef): JsonRuleRef {
  return { selector: r.selector, file: r.file, line: r.line, column: r.column };
}
