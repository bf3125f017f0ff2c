/**
 * The reports commands return (data, never text). Formatters turn them into output; `main.ts` turns their
 * outcome into an exit code. The lint report and the JSON shapes are declared in `compile/report.ts`, the public
 * API (`dsh-mode/compile`); they are re-exported here.
 * @module
 */
import type { LintReport } from '../compile/report.js';
import type { Decision, Diagnostic, RuleRef } from '../compile/types.js';

export type { LintReport } from '../compile/report.js';

/** What `dsh-mode check` answered, or why it could not. */
export type CheckReport =
  | {
      kind: 'decided';
      mode: string;
      tool: string;
      decision: Decision;
      visible: boolean;
      reason: string | null;
      rule: RuleRef;
    }
  | { kind: 'unknown-mode'; mode: string; modes: string[] }
  | { kind: 'load-failed'; diagnostics: Diagnostic[] };

/**
 * The format context `main.ts` builds once per run and passes to every formatter: everything output may depend
 * on besides the report.
 */
export interface FormatContext {
  /** Emit ANSI colours. */
  color: boolean;
  /** The folder the command runs in: CI formats show paths relative to it. */
  cwd: string;
  /** The package version (SARIF names it). */
  version: string;
}

/** What the human formatters read from the context. */
export type FormatOptions = Pick<FormatContext, 'color'>;

/**
 * Counts diagnostics by severity into a lint report.
 * @param diagnostics sorted diagnostics
 * @param files the files read
 * @returns the report
 */
export function toLintReport(diagnostics: Diagnostic[], files: string[]): LintReport {
  const count = (s: Diagnostic['severity']) => diagnostics.filter((d) => d.severity === s).length;
  return {
    diagnostics,
    errorCount: count('error'),
    warningCount: count('warning'),
    infoCount: count('info'),
    files,
  };
}
