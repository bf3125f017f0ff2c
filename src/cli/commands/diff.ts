/**
 * `dsh-mode diff OLD NEW`: how a policy change moves decisions. OLD and NEW are policy files, folders, or git
 * revisions of them (`git:REV:path`); each side loads as lint loads (the built-in plan first unless
 * `--no-builtin`). Two answers, both from the engine's verdict (`authorize`) before and after:
 * - the view: for every mode of either side and every tool (see `../../compile/report/grid.ts`) the decisions
 *   with the deciding rule and its file:line; rows that stand for a selector, and `(other tool)`, also under each
 *   of the 16 hint combinations where that shows a change their row does not;
 * - the exact diff (`../../compile/report/escalations.ts`): every call whose decision moves, by name, hints,
 *   command or path, found over the classes the patterns tell apart (not sampled), each shown by a shortest
 *   witness call.
 *
 * An *escalation* is a change towards allow (deny → ask, deny → allow, ask → allow); since visibility is "not
 * deny", a tool becoming visible is one too. The escalations are the exact diff's, never the view's samples. A
 * mode only one side defines counts as denying everything on the other side (the engine fails closed on an
 * undefined mode), so a new permissive mode escalates. With `--fail-on-escalation` any escalation exits 1 and
 * stderr names each one by its witness and the rule and line that caused it; so does a diff that could not ask
 * every class (a search budget), which fails closed.
 * A mode's `sandbox` going from `read-only` to `none` is an escalation too (`../sandbox-diff.ts`), listed apart.
 * @module
 */
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';
import {
  collectToolRows,
  compareRestrictiveness,
  exactDiff,
  hintProbes,
  isReadOnlyProbe,
  modeNames,
  type Cell,
  type ExactCall,
  type ExactFinding,
  type Judge,
  type ToolRow,
} from '../../compile/index.js';
import { decideCell, reportTool } from '../grid-cells.js';
import {
  describeEscalation,
  formatDiffJson,
  formatDiffMarkdown,
  formatDiffText,
} from '../formatters/diff.js';
import type { ChangeKind, DiffReport, DiffRow, LoadFailedReport, ReportTool } from '../grid-report.js';
import { loadSide, loadToolSet, type GridOptions } from '../grid-load.js';
import { loadFailedOutcome } from '../inputs.js';
import { describeSandboxChange, sandboxChanges } from '../sandbox-diff.js';

/** Options of {@link runDiff}. */
export interface RunDiffOptions extends GridOptions {
  /** The old policies: a file, a folder or `git:REV:path`. */
  old: string;
  /** The new policies, likewise. */
  new: string;
}

/**
 * Compares two policy sets.
 * @param options both sides, catalog, built-in and working folder
 * @returns every mode × tool before and after, or why a side cannot be compared
 */
export async function runDiff(options: RunDiffOptions): Promise<DiffReport | LoadFailedReport> {
  const toolSet = await loadToolSet(options.catalog, options.cwd);
  if ('kind' in toolSet) return toolSet;
  // Both sides decide a call that declares no hints with the catalog the rows come from.
  const loadOptions = { builtin: options.builtin !== false, cwd: options.cwd, tools: toolSet.tools };
  const before = await loadSide([options.old], loadOptions);
  if ('kind' in before) return { ...before, side: 'old' };
  const after = await loadSide([options.new], loadOptions);
  if ('kind' in after) return { ...after, side: 'new' };
  const tools = collectToolRows(
    [before.load.documents, after.load.documents],
    toolSet.tools,
    toolSet.toolSet,
  );
  const readOnly = tools.find(isReadOnlyProbe);
  const rows: DiffRow[] = [];
  for (const mode of modeNames(before.policies, after.policies)) {
    const compare = (row: ToolRow): DiffRow => {
      const was = decideCell(before.policies, mode, row);
      const now = decideCell(after.policies, mode, row);
      return { mode, tool: reportTool(row), before: was, after: now, change: classify(was, now) };
    };
    for (const row of tools) {
      const base = compare(row);
      rows.push(base);
      const seen = row.source === 'probe' && readOnly ? [pairKey(compare(readOnly))] : [];
      const shows = (r: DiffRow) => r.change !== 'unchanged' && pairKey(r) !== pairKey(base);
      for (const probe of hintProbes(row, compare, shows, pairKey, seen)) rows.push(probe.answer);
    }
  }
  // The exact answer: every class of calls, each side deciding as the gate does.
  const sides = { old: before.policies, new: after.policies };
  const judge: Judge = (side, mode, call) => {
    const cell = decideCell(sides[side], mode, witnessRow(call));
    return { decision: cell.decision, key: cellKey(cell) };
  };
  const exact = exactDiff(before.policies, after.policies, { catalog: toolSet.tools, judge });
  const witness = (f: ExactFinding): DiffRow => {
    const row = witnessRow(f.call, f.label);
    const was = decideCell(before.policies, f.mode, row);
    const now = decideCell(after.policies, f.mode, row);
    return { mode: f.mode, tool: witnessTool(row, f), before: was, after: now, change: classify(was, now) };
  };
  const escalations = exact.escalations.map(witness);
  // Narrowings by name already show in the view; those of a command or path show by their witness.
  const narrowings = exact.narrowings.filter((f) => f.kind !== 'name').map(witness);
  const counts: Record<ChangeKind, number> = { escalation: 0, narrowing: 0, 'rule-changed': 0, unchanged: 0 };
  for (const row of rows) if (row.change !== 'escalation') counts[row.change]++;
  counts.escalation = escalations.length;
  counts.narrowing += narrowings.length;
  return {
    kind: 'diff',
    old: { source: options.old, files: before.load.files, modes: [...before.policies.modes.keys()] },
    new: { source: options.new, files: after.load.files, modes: [...after.policies.modes.keys()] },
    toolSet: toolSet.toolSet,
    rows,
    counts,
    sandbox: sandboxChanges(before.policies, after.policies, toolSet.tools),
    escalations,
    narrowings,
    exact: { calls: exact.calls, limits: exact.limits.map((l) => ({ ...l })) },
  };
}

/** A witness call as a grid row, so the view's cells and formats show it. */
function witnessRow(call: ExactCall, label = call.name): ToolRow {
  const row: ToolRow = { name: call.name, label, source: 'witness' };
  if (call.hints !== undefined) row.hints = call.hints;
  if (call.arguments !== undefined) row.arguments = call.arguments;
  return row;
}

function witnessTool(row: ToolRow, finding: ExactFinding): ReportTool {
  const tool: ReportTool = { name: row.name, label: row.label, source: 'witness', kind: finding.kind };
  if (finding.call.hints !== undefined) tool.hints = { ...HINTS_OFF, ...finding.call.hints };
  if (row.arguments !== undefined) tool.arguments = { ...row.arguments };
  return tool;
}

const HINTS_OFF = { readOnly: false, destructive: false, idempotent: false, openWorld: false };

/** What makes two answers the same for a reader: the rule, the pattern and the reason. */
function cellKey(c: Cell): string {
  return JSON.stringify([c.rule.selector, c.pattern?.selector, c.reason]);
}

/** What makes two rows say the same to a reviewer: both decisions, rules, argument patterns and reasons. */
function pairKey(row: DiffRow): string {
  const side = (c: Cell) => JSON.stringify([c.decision, c.rule.selector, c.pattern?.selector, c.reason]);
  return `${side(row.before)}→${side(row.after)}`;
}

/**
 * How one decision changed. Rule identity is the selector and reason, not the position, so a rule that only
 * moved lines (or a side read from another folder or revision) is unchanged.
 * @returns the change
 */
export function classify(before: Cell, after: Cell): ChangeKind {
  const order = compareRestrictiveness(after.decision, before.decision);
  if (order < 0) return 'escalation';
  if (order > 0) return 'narrowing';
  const sameRule =
    before.rule.selector === after.rule.selector &&
    before.pattern?.selector === after.pattern?.selector &&
    before.reason === after.reason;
  return sameRule ? 'unchanged' : 'rule-changed';
}

const FORMATS = ['text', 'markdown', 'json'] as const;

const spec: CommandSpec = {
  name: 'diff',
  summary: 'compare the decisions of two policy sets and flag escalations',
  usage: 'diff OLD NEW [--tools CATALOG] [--format text|json|markdown] [--fail-on-escalation] [--no-builtin]',
  description: [
    'OLD and NEW are policy files, folders, or git revisions of them written git:REV:path (the path relative',
    'to the current folder, for example git:origin/main:policies). Each side loads as lint loads it.',
    'For every mode and tool (the tools of CATALOG, else the reference host built-in tools; every name a',
    'rule mentions; a sample per glob; two probes for unnamed tools) the decisions before and after are',
    'compared, with the deciding rule and its file:line. Rows that stand for a selector, and (other tool),',
    'are also compared under each of the 16 combinations of hints, so a widening by effects shows too; such',
    'a row is labelled with the hints that are true, for example `(other tool) [idempotent]`.',
    '',
    'Escalations are exact, not sampled: the tool names, hint combinations, commands and paths are split',
    'into the classes that the patterns of both sides tell apart, and each class is decided on both sides.',
    'Each escalation is shown by a shortest witness call, for example `bash command="sort --oy"`, to paste',
    'into `dsh-mode check MODE TOOL --args`. Commands and paths that narrow are shown the same way. Where the',
    'answer is not exact (see docs/argument-rules.md) a note says so.',
    '',
    'An escalation is a change towards allow (deny to ask, deny to allow, ask to allow), which includes a',
    'tool becoming visible. A mode that only one side defines denies everything on the other side.',
    'Markdown output fits a pull-request comment. When comparing the built-in policies/plan.yaml itself, use',
    '--no-builtin.',
    '',
    'Exit codes: 0 compared (escalations or not, unless --fail-on-escalation); 1 an escalation under',
    '--fail-on-escalation (or a diff that could not ask every class of calls), or a policy that cannot load;',
    '2 usage errors, or a path, revision or catalog that cannot be read.',
  ].join('\n'),
  options: [
    {
      name: 'tools',
      type: 'string',
      value: 'CATALOG',
      description: 'a tool catalog (JSON): the tools to compare',
    },
    {
      name: 'format',
      type: 'string',
      value: 'NAME',
      choices: FORMATS,
      description: 'output format, default text',
    },
    {
      name: 'fail-on-escalation',
      type: 'boolean',
      description: 'exit 1 when any decision moves towards allow',
    },
    { name: 'no-builtin', type: 'boolean', description: 'do not load the built-in plan policy' },
  ],
  examples: [
    'diff git:origin/main:policies policies --fail-on-escalation',
    'diff old/ new/ --format markdown',
    'diff git:HEAD~1:ops/plan.yaml ops/plan.yaml --tools tools.json --format json',
  ],
};

/** The command-line adapter of `diff`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    const [old, now, ...extra] = args.positionals;
    if (old === undefined || now === undefined)
      throw new UsageError(old === undefined ? 'missing OLD and NEW' : 'missing NEW');
    if (extra.length > 0)
      throw new UsageError(`unexpected argument \`${extra[0]}\``, 'diff compares exactly two sources');
    const catalog = stringOption(args, 'tools');
    const report = await runDiff({
      old,
      new: now,
      ...(catalog === undefined ? {} : { catalog }),
      builtin: !args.options.has('no-builtin'),
      cwd: env.cwd,
    });
    if (report.kind === 'load-failed') return loadFailedOutcome(report, 'nothing is compared');
    const format = args.options.get('format') ?? 'text';
    const stdout =
      format === 'json'
        ? formatDiffJson(report)
        : format === 'markdown'
          ? formatDiffMarkdown(report)
          : formatDiffText(report, env);
    const escalations = report.escalations;
    // A sandbox lifted (read-only → none) escalates as much as a decision moving towards allow.
    const lifted = report.sandbox.filter((c) => c.change === 'escalation');
    const incomplete = report.exact.limits.filter((l) => l.incomplete);
    const n = escalations.length + lifted.length;
    if (args.options.has('fail-on-escalation') && (n > 0 || incomplete.length > 0)) {
      const lines =
        n > 0
          ? [
              `error: ${n} escalation${n === 1 ? '' : 's'} towards allow (--fail-on-escalation):`,
              ...escalations.map((r) => `  ${describeEscalation(r)}`),
              ...lifted.map((c) => `  ${describeSandboxChange(c)}`),
            ]
          : [];
      if (incomplete.length > 0)
        lines.push(
          'error: the diff could not ask every class of calls, so it cannot rule out an escalation:',
          ...incomplete.map((l) => `  ${l.text}`),
        );
      return { kind: 'findings', stdout, stderr: [...lines, ''].join('\n') };
    }
    return { kind: 'ok', stdout };
  },
};
