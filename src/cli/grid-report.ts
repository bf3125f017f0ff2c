/**
 * The reports of `dsh-mode matrix` and `dsh-mode diff` (data, never text). They are also the `--format json`
 * output, printed as they are: public API, fields only ever added.
 * @module
 */
import type { Cell, Diagnostic, ExactLimit, Hints, ToolSource } from '../compile/index.js';
import type { SandboxChange, SandboxSide } from './sandbox-diff.js';

/**
 * One tool of a report. `name` is what was decided; `label` is what people see (a glob for a sample). A hint
 * probe has `hints`, every hint explicit, and its label ends with the hints that are true (`[idempotent]`). An
 * argument probe (`source: 'argument'`) has `arguments`, and its label ends with them (`bash command="git push"`).
 */
export interface ReportTool {
  name: string;
  label: string;
  source: ToolSource;
  hints?: Required<Hints>;
  /** Set on an argument probe and a witness: the call's arguments. */
  arguments?: Record<string, string>;
  /**
   * Set on a witness of the exact diff (`source: 'witness'`): what it varies, `name` (the name and hints),
   * `command`, `path`, or `arguments` (several).
   */
  kind?: 'name' | 'command' | 'path' | 'arguments';
}

/** What `matrix` found: every mode's decision for every tool. */
export interface MatrixReport {
  kind: 'matrix';
  /**
   * The modes, in load order, with their descriptions and the sandbox their program tools (`bash`) run in, with
   * the `sandbox` key that sets it (null: none does, so they run unsandboxed).
   */
  modes: { name: string; description: string | null; sandbox: SandboxSide }[];
  tools: ReportTool[];
  /** `cells[m][t]` is mode `modes[m]`'s decision for `tools[t]`. */
  cells: Cell[][];
  /** Whether the tools came from `--tools` or the reference host's built-ins. */
  toolSet: 'catalog' | 'builtin';
  files: string[];
}

/** How a decision changed from OLD to NEW. */
export type ChangeKind = 'escalation' | 'narrowing' | 'rule-changed' | 'unchanged';

/** One mode and tool of a diff. */
export interface DiffRow {
  mode: string;
  tool: ReportTool;
  before: Cell;
  after: Cell;
  /**
   * `escalation`: towards allow (deny → ask, deny → allow, ask → allow; the tool may become visible);
   * `narrowing`: towards deny; `rule-changed`: the same decision from another selector or with another reason.
   */
  change: ChangeKind;
}

/** One side of a diff. */
export interface DiffSide {
  /** As the user wrote it (a path or `git:REV:path`). */
  source: string;
  files: string[];
  modes: string[];
}

/**
 * What `diff` found. `rows` holds every mode × tool, changed or not: the view, from samples. `escalations` is the
 * exact answer: one witness row per class of calls whose decision moves towards allow (a view row marked as an
 * escalation has a witness there too); `narrowings` the witnesses of commands and paths that move towards deny.
 * `counts.escalation` counts the witnesses; the other counts are the view's rows and the narrowing witnesses.
 */
export interface DiffReport {
  kind: 'diff';
  old: DiffSide;
  new: DiffSide;
  toolSet: 'catalog' | 'builtin';
  rows: DiffRow[];
  counts: Record<ChangeKind, number>;
  /** The modes whose `sandbox` setting changed (`read-only` → `none` is an escalation); empty when none did. */
  sandbox: SandboxChange[];
  escalations: DiffRow[];
  narrowings: DiffRow[];
  /** How many calls the exact diff decided on each side, and where its answer is not exact. */
  exact: { calls: number; limits: ExactLimit[] };
}

/** Why `matrix` or `diff` could not compare: a side that does not load (fail closed). */
export interface LoadFailedReport {
  kind: 'load-failed';
  /** Which side failed, for diff. */
  side?: 'old' | 'new';
  diagnostics: Diagnostic[];
  /** True when a path, revision or catalog could not be read at all (exit 2 rather than 1). */
  io: boolean;
}
