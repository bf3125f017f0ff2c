/**
 * `dsh-mode lint`: load policies (the built-in plan first), report every load diagnostic and lint finding, and run
 * the inline tests. A path named `cordis.yml` (or `cordis.yaml`) is a deployment: its envelope, its inline modes
 * and the policy files it names are linted as the deployment would load them (src/deploy). `runLint` returns a report and prints nothing; `command.execute` formats it and says how the
 * run ended (clean, findings, or an I/O problem).
 * @module
 */
import { stringOption } from '../argv.js';
import { basename } from 'node:path';
import { loadPolicySources, sortDiagnostics, type ToolCatalogEntry } from '../../compile/index.js';
import type { Diagnostic } from '../../compile/types.js';
import type { CliCommand, CommandSpec, Outcome } from '../command.js';
import { UsageError } from '../errors.js';
import { invocation } from '../../apps/invocation.js';
import { lintFormatters, type LintFormatName } from '../formatters/index.js';
import { defaultFolder, defaultPaths, IO_CODES } from '../inputs.js';
import { toLintReport, type LintReport } from '../report.js';

/** Options of {@link runLint}. */
export interface RunLintOptions {
  /** Policy files and folders; empty means `policies/` in `cwd` when it exists. */
  paths: readonly string[];
  /** A tool catalog file (`--tools`). */
  catalog?: string;
  /** Load the built-in plan policy first (default true). */
  builtin?: boolean;
  /** The folder relative paths are read from (the default `policies/` is looked up here). */
  cwd: string;
  /** The environment, for how hints name the command (`npx dsh-mode` through npx). */
  vars?: NodeJS.ProcessEnv;
}

/**
 * Lints policies.
 * @param options paths, catalog, built-in and working folder
 * @returns the report: every diagnostic, counts and files read
 */
export async function runLint(options: RunLintOptions): Promise<LintReport> {
  const all = defaultPaths(options.paths, options.cwd);
  const notes: string[] = [];
  if (all.length === 0) {
    const none =
      defaultFolder(options.cwd) === 'empty'
        ? 'no PATH given and no policy file in `policies/`'
        : 'no PATH given and no `policies/` folder here';
    if (options.builtin === false) {
      throw new UsageError(
        `nothing to lint: ${none}, and \`--no-builtin\``,
        `name the policy files or folders: ${invocation(options.vars)} lint PATH...`,
      );
    }
    notes.push(`${none}: only the built-in plan was linted`);
  }
  const deployments = all.filter(isDeploymentPath);
  const paths = all.filter((p) => !isDeploymentPath(p));
  const extra: Diagnostic[] = [];
  let catalog: ToolCatalogEntry[] | undefined;
  if (options.catalog !== undefined) {
    const { loadCatalog } = await import('../../compile/index.js');
    const result = await loadCatalog(options.catalog, options.cwd);
    for (const d of result.diagnostics) extra.push(d);
    if (!result.diagnostics.some((d) => d.severity === 'error')) catalog = result.tools;
  }
  const lintOptions = catalog === undefined ? {} : { catalog };
  // Loops, not spread pushes: a linted tree can hold more findings than a call's argument limit.
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const add = (found: readonly Diagnostic[], read: readonly string[]): void => {
    for (const d of found) diagnostics.push(d);
    for (const f of read) if (!files.includes(f)) files.push(f);
  };
  // A deployment loads the built-in plan itself: lint it on its own only when policy paths are given too.
  if (paths.length > 0 || deployments.length === 0) {
    const load = await loadPolicySources(paths, { builtin: options.builtin !== false, cwd: options.cwd });
    for (const folder of load.unread ?? []) {
      notes.push(`\`${folder}\` was not read: folders are read one level deep; name it to lint it`);
    }
    const input = { ...load, diagnostics: [...load.diagnostics, ...extra] };
    add((await import('../../compile/index.js')).lintPolicies(input, lintOptions), load.files);
  } else {
    add(extra, []);
  }
  // Imported only for a deployment: its validators are the largest module `lint` would otherwise load.
  const { fromCwd, lintDeployment, readDeployment } =
    deployments.length > 0 ? await import('../../deploy/index.js') : {};
  const { deployedTrust } = deployments.length > 0 ? await import('../grid-load.js') : {};
  for (const file of deployments) {
    // A deployment's inline tests decide an MCP tool with its catalogued hints only when that deployment trusts
    // its server, as its running agent does.
    const path = fromCwd!(file, options.cwd);
    const trusted =
      catalog === undefined
        ? lintOptions
        : { catalog: deployedTrust!(catalog, readDeployment!(path).entries) };
    const linted = await lintDeployment!(path, trusted);
    add(linted.diagnostics, linted.files);
  }
  const report = toLintReport(sortDiagnostics(diagnostics), files);
  return notes.length > 0 ? { ...report, notes } : report;
}

/** A path linted as a deployment: a file named like the one the apps find. */
function isDeploymentPath(path: string): boolean {
  return /^cordis\.ya?ml$/.test(basename(path));
}

const spec: CommandSpec = {
  name: 'lint',
  summary: 'validate policies, run their inline tests and report findings',
  usage:
    'lint [PATH...] [--tools CATALOG] [--format stylish|json|sarif|github] [--max-warnings N] [--no-builtin] [--annotate-infos]',
  description: [
    'Loads the built-in plan policy, then each PATH in order (a folder contributes its *.yaml, *.yml and',
    '*.json files, sorted, not recursively; without PATH, policies/ in the current folder if it exists). Reports',
    'syntax and schema errors, unknown keys (with a did-you-mean), lint findings and failing inline tests.',
    '*.json files are strict JSON (no trailing comma, no comment). A PATH that yields no policy file is an',
    'error (an empty policies/ that no PATH names is not: the built-in plan is linted alone); subfolders are',
    'not read, and a note on stderr names those that hold policy files.',
    'A PATH named cordis.yml is a deployment: its entries, its inline modes and the policy files it names are',
    'linted as chat and acp would load them (the built-in plan included).',
    '',
    'With --tools, CATALOG is a JSON file: an array of {name, annotations?} or an MCP tools/list result',
    '{tools: [...]}; lint then flags rules that match no tool and tools that only a default decides.',
    '',
    'With --format github, info findings are one summary notice (GitHub shows ten notices per step), unless',
    '--annotate-infos.',
    '',
    'Exit codes: 0 no errors (and warnings within --max-warnings); 1 errors, or too many warnings;',
    '2 usage errors, or a path or catalog that cannot be read (or a folder without policy files).',
  ].join('\n'),
  options: [
    { name: 'tools', type: 'string', value: 'CATALOG', description: 'a tool catalog (JSON) to lint against' },
    {
      name: 'format',
      type: 'string',
      value: 'NAME',
      choices: Object.keys(lintFormatters),
      description: 'output format, default stylish',
    },
    {
      name: 'max-warnings',
      type: 'string',
      value: 'N',
      description: 'fail when there are more than N warnings',
    },
    { name: 'no-builtin', type: 'boolean', description: 'do not load the built-in plan policy' },
    {
      name: 'annotate-infos',
      type: 'boolean',
      description: 'with --format github, one annotation per info finding (default: one summary line)',
    },
  ],
  examples: [
    'lint',
    'lint policies/ ops/review.yaml --format json',
    'lint cordis.yml',
    'lint --tools tools.json --max-warnings 0',
  ],
};

/** The command-line adapter of `lint`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    const format = (args.options.get('format') ?? 'stylish') as LintFormatName;
    const maxWarnings = parseMaxWarnings(args.options.get('max-warnings'));
    const catalog = stringOption(args, 'tools');
    const report = await runLint({
      paths: args.positionals,
      ...(catalog === undefined ? {} : { catalog }),
      builtin: !args.options.has('no-builtin'),
      cwd: env.cwd,
      vars: env.vars,
    });
    const formatter = await lintFormatters[format]();
    const stdout = formatter(report, {
      ...env,
      color: env.color && format === 'stylish',
      annotateInfos: args.options.has('annotate-infos'),
    });
    const notes = (report.notes ?? []).map((n) => `note: ${n}\n`).join('');
    const withNotes = (outcome: Outcome): Outcome =>
      notes === '' ? outcome : { ...outcome, stderr: notes + (outcome.stderr ?? '') };
    if (report.diagnostics.some((d) => d.severity === 'error' && IO_CODES.has(d.code)))
      return withNotes({ kind: 'io', stdout });
    if (report.errorCount > 0) return withNotes({ kind: 'findings', stdout });
    if (maxWarnings !== undefined && report.warningCount > maxWarnings) {
      return withNotes({
        kind: 'findings',
        stdout,
        stderr: `error: ${count(report.warningCount, 'warning')}: more than the maximum of ${maxWarnings} (--max-warnings)\n`,
      });
    }
    return withNotes({ kind: 'ok', stdout });
  },
};

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function parseMaxWarnings(value: string | true | undefined): number | undefined {
  if (value === undefined || value === true) return undefined;
  if (!/^\d+$/.test(value)) {
    throw new UsageError(`option \`--max-warnings\` needs a whole number, not \`${value}\``);
  }
  return Number(value);
}
