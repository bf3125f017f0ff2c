/**
 * The reports commands return (data, never text). Formatters turn them into output; `main.ts` turns their
 * outcome into an exit code. The lint report and the JSON shapes are declared in `compile/report.ts`, the public
 * API (`dsh-mode/compile`); they are re-exported here.
 * @module
 */
import type { Decision, Diagnostic, LintReport, RuleRef, SandboxKind } from '../compile/index.js';

export type { LintReport } from '../compile/index.js';

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
      /** With `--args`: what the arguments decided. */
      arguments?: CheckArguments;
      /** A did-you-mean when no rule names TOOL and it is no known tool. */
      hint?: string;
      /**
       * For a tool that runs programs whose call is not denied: the sandbox it runs in, and the `sandbox` key
       * that sets it (absent when no document sets one, so it runs unsandboxed).
       */
      sandbox?: { kind: SandboxKind; rule?: RuleRef };
    }
  | { kind: 'unknown-mode'; mode: string; modes: string[] }
  | {
      kind: 'load-failed';
      diagnostics: Diagnostic[];
      /** True when a path or deployment could not be read at all (exit 2 rather than 1), as in matrix and diff. */
      io: boolean;
    };

/** What `check --args` adds: the command or path that decided, the pattern, and a script's commands. */
export interface CheckArguments {
  /** The command or path that decided, or null when the arguments did not (a name-only rule). */
  subject: string | null;
  /** The deciding pattern with its location, when a pattern decided. */
  pattern?: RuleRef;
  /** The gate's full reason, which quotes the subject. */
  message: string;
  /** For a script: one entry per simple command. */
  commands?: { text: string; decision: Decision; rule: RuleRef; pattern?: RuleRef; note?: string }[];
}

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
  /** The package's GitHub repository (`https://github.com/OWNER/REPO`): SARIF links its docs; none, no links. */
  repository?: string;
  /** The installed package's README as a `file:` URI: SARIF's `informationUri` when there is no repository. */
  documentation?: string;
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
