/**
 * The machine-readable outputs. Their shapes are a stable contract (CI and editors parse them): fields are only
 * ever added, never renamed or removed.
 * @module
 */
import type {
  Diagnostic,
  JsonCheckOutput,
  JsonDiagnostic,
  JsonLintOutput,
  JsonRuleRef,
} from '../../compile/index.js';
import { labelBuiltin } from './paths.js';
import type { CheckReport, FormatOptions, LintReport } from '../report.js';

export type { JsonCheckOutput, JsonDiagnostic, JsonLintOutput, JsonRuleRef } from '../../compile/index.js';

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
  return `${JSON.stringify(out, labelBuiltin)}\n`;
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
  if (report.hint !== undefined) out.hint = report.hint;
  if (report.sandbox)
    out.sandbox = {
      kind: report.sandbox.kind,
      rule: report.sandbox.rule ? ref(report.sandbox.rule) : null,
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
  return `${JSON.stringify(out, labelBuiltin)}\n`;
}

function ref(r: JsonRuleRef): JsonRuleRef {
  return { selector: r.selector, file: r.file, line: r.line, column: r.column };
}
