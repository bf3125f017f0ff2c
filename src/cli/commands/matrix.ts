/**
 * `dsh-mode matrix [PATH...]`: the modes × tools grid of decisions, the picture an operator wants before reading
 * rules. Which tools are shown is described in `../../compile/grid.ts`; each cell is the engine's `authorize`
 * verdict. A hint probe gets a row only where it changes a decision in some mode, and so does an argument probe
 * (a call whose command or path matches a pattern or just misses it, shown with its arguments, once per distinct
 * answer). `runMatrix` returns a report
 * and prints nothing; the adapter formats it.
 * @module
 */
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';
import {
  argumentRows,
  argumentRulesOf,
  collectToolRows,
  hintProbes,
  isReadOnlyProbe,
  type Cell,
  type ToolCatalogEntry,
  type ToolRow,
} from '../../compile/index.js';
import { decideCell, reportTool } from '../grid-cells.js';
import { formatMatrixJson, formatMatrixMarkdown, formatMatrixText } from '../formatters/matrix.js';
import type { LoadFailedReport, MatrixReport } from '../grid-report.js';
import { loadSide, loadToolSet, type GridOptions, type LoadedSide } from '../grid-load.js';
import { resolve } from 'node:path';
import { deploymentPolicies } from '../../deploy/index.js';
import { defaultPaths, loadFailed, loadFailedOutcome } from '../inputs.js';

/** Options of {@link runMatrix}. */
export interface RunMatrixOptions extends GridOptions {
  /** Policy files, folders or `git:REV:path` sources; empty means `policies/` in `cwd` when it exists. */
  paths: readonly string[];
  /** `--config`: the modes this deployment file runs with, instead of `paths`. */
  config?: string;
}

/**
 * Builds the grid.
 * @param options sources, catalog, built-in and working folder
 * @returns the grid, or why there is none
 */
export async function runMatrix(options: RunMatrixOptions): Promise<MatrixReport | LoadFailedReport> {
  const toolSet = await loadToolSet(options.catalog, options.cwd, options.config);
  if ('kind' in toolSet) return toolSet;
  // The modes decide a row that declares no hints with the same catalog the rows come from.
  const side =
    options.config !== undefined
      ? await deployedSide(resolve(options.cwd, options.config), toolSet.tools)
      : await loadSide(defaultPaths(options.paths, options.cwd), {
          builtin: options.builtin !== false,
          cwd: options.cwd,
          tools: toolSet.tools,
        });
  if ('kind' in side) return side;
  const modes = [...side.policies.modes.values()];
  const line = (row: ToolRow) => modes.map((p) => decideCell(side.policies, p.mode, row));
  const decisions = (cells: readonly Cell[]) => cells.map((c) => c.decision).join(' ');
  const rules = (cells: readonly Cell[]) =>
    JSON.stringify(cells.map((c) => [c.decision, c.rule.selector, c.pattern?.selector]));
  const rows = collectToolRows([side.load.documents], toolSet.tools, toolSet.toolSet);
  const argumentRules = argumentRulesOf([side.load.documents]);
  const readOnly = rows.find(isReadOnlyProbe);
  const grid: { row: ToolRow; cells: Cell[] }[] = [];
  for (const row of rows) {
    const cells = line(row);
    grid.push({ row, cells });
    // `(other tool)` probed read-only says what `(other read-only tool)` says: no row for that.
    const seen = row.source === 'probe' && readOnly ? [rules(line(readOnly))] : [];
    const changes = (probe: Cell[]) => decisions(probe) !== decisions(cells);
    for (const probe of hintProbes(row, line, changes, rules, seen))
      grid.push({ row: probe.row, cells: probe.answer });
    // A call whose command or path the mode decides otherwise than the bare tool, once per distinct answer.
    const shown = new Set([rules(cells)]);
    for (const call of argumentRows(row, argumentRules)) {
      const answer = line(call);
      if (!changes(answer) || shown.has(rules(answer))) continue;
      shown.add(rules(answer));
      grid.push({ row: call, cells: answer });
    }
  }
  return {
    kind: 'matrix',
    modes: modes.map((p) => ({
      name: p.mode,
      description: p.description ?? null,
      sandbox: { kind: p.sandbox?.kind ?? 'none', rule: p.sandbox?.rule ?? null },
    })),
    tools: grid.map(({ row }) => reportTool(row)),
    cells: modes.map((_, m) => grid.map(({ cells }) => cells[m]!)),
    toolSet: toolSet.toolSet,
    files: side.load.files,
  };
}

/** A deployment's modes as a grid side (the same fail-closed refusal as `loadSide`). */
async function deployedSide(
  file: string,
  tools: readonly ToolCatalogEntry[],
): Promise<LoadedSide | LoadFailedReport> {
  const deployed = await deploymentPolicies(file, { catalog: tools });
  if (!deployed.policies) {
    const errors = deployed.diagnostics.filter((d) => d.severity === 'error');
    return loadFailed(errors);
  }
  const load = { documents: deployed.documents, diagnostics: [], files: deployed.files };
  return { load, policies: deployed.policies };
}

const FORMATS = ['text', 'markdown', 'json'] as const;

const spec: CommandSpec = {
  name: 'matrix',
  summary: 'show the decision of every mode for every tool as a grid',
  usage: 'matrix [PATH...] [--config FILE] [--tools CATALOG] [--format text|markdown|json] [--no-builtin]',
  description: [
    'Loads policies as lint does (the built-in plan first, then each PATH; without PATH, policies/ in the',
    'current folder; a PATH may also be git:REV:path) and prints a grid: one row per tool, one column per mode.',
    'With --config FILE, the modes are those the deployment FILE (a cordis.yml) runs with.',
    '',
    'Rows: the tools of CATALOG (without --tools, the reference host built-in tools and exit_plan_mode), every',
    'name a rule mentions, one sample name per glob (the row shows the glob), and two probes for tools nobody',
    'named: (other tool) and (other read-only tool). Rows that stand for a selector, and (other tool), are',
    'also asked with each of the 16 combinations of hints; such a row, labelled with the hints that are true',
    '(for example `(other tool) [idempotent]`), is shown only where it changes a decision. A tool with',
    'commands: or paths: rules is also asked with calls whose command or path matches each pattern or just',
    'misses it; such a row, labelled with the call (for example `bash command="git log"`), is shown once per',
    'distinct answer where it changes a decision. Decisions are coloured on a terminal.',
    '',
    'Exit codes: 0 the grid was printed; 1 a policy that cannot load; 2 usage errors, or a path or catalog',
    'that cannot be read.',
  ].join('\n'),
  options: [
    {
      name: 'tools',
      type: 'string',
      value: 'CATALOG',
      description: 'a tool catalog (JSON): the rows to show',
    },
    {
      name: 'format',
      type: 'string',
      value: 'NAME',
      choices: FORMATS,
      description: 'output format, default text',
    },
    { name: 'no-builtin', type: 'boolean', description: 'do not load the built-in plan policy' },
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      description: 'the modes of this deployment (cordis.yml) instead of PATH',
    },
  ],
  examples: ['matrix', 'matrix policies/ --format markdown', 'matrix --tools tools.json --format json'],
};

/** The command-line adapter of `matrix`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    const catalog = stringOption(args, 'tools');
    const config = stringOption(args, 'config');
    if (config !== undefined && args.positionals.length > 0) {
      throw new UsageError('`--config` and policy paths cannot be combined');
    }
    if (config !== undefined && args.options.has('no-builtin')) {
      throw new UsageError(
        '`--config` and `--no-builtin` cannot be combined: a deployment loads the built-in plan',
      );
    }
    const report = await runMatrix({
      ...(config === undefined ? {} : { config }),
      paths: args.positionals,
      ...(catalog === undefined ? {} : { catalog }),
      builtin: !args.options.has('no-builtin'),
      cwd: env.cwd,
    });
    if (report.kind === 'load-failed') return loadFailedOutcome(report, 'no grid is shown');
    const format = args.options.get('format') ?? 'text';
    const stdout =
      format === 'json'
        ? formatMatrixJson(report)
        : format === 'markdown'
          ? formatMatrixMarkdown(report)
          : formatMatrixText(report, env);
    return { kind: 'ok', stdout };
  },
};
