/**
 * `dsh-mode check MODE TOOL`: how a mode decides one tool: the decision, whether the tool is visible, the reason,
 * and the rule that decided with its file:line:column (`default` with null positions when no document decides).
 * The decision is the engine's `authorize` verdict, so it is what the gate does (`exit_plan_mode` asks where it
 * is not denied). `runCheck` returns a report and prints nothing.
 * @module
 */
import {
  builtinToolCatalog,
  collectToolRows,
  compilePolicies,
  fsPathResolver,
  fsProgramCheck,
  HINT_NAMES,
  runsPrograms,
  loadPolicySources,
  suggest,
  type CompiledPolicySet,
  type ToolCatalogEntry,
} from '../../compile/index.js';
import type { HintName, Hints, RuleRef, SourceDocument } from '../../compile/types.js';
import { authorize, type AuthorizeOptions, type ToolCall, type Verdict } from '../../engine/authorize.js';
import { deploymentPolicies } from '../../deploy/index.js';
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';
import { formatCheckText } from '../formatters/check-text.js';
import { formatCheckJson } from '../formatters/json.js';
import type { CheckArguments, CheckReport } from '../report.js';
import { resolve } from 'node:path';
import { defaultPaths, loadFailed, loadFailedOutcome } from '../inputs.js';
import { loadToolSet } from '../grid-load.js';

/** Options of {@link runCheck}. */
export interface RunCheckOptions {
  mode: string;
  tool: string;
  /**
   * The tool's declared hints (absent ones take MCP's defaults); without them, the catalogued tool's (a built-in
   * tool's own annotations, a `--tools` entry's).
   */
  hints?: Hints;
  /** Policy files and folders; empty means `policies/` in `cwd` when it exists. */
  paths: readonly string[];
  builtin?: boolean;
  cwd: string;
  /** `--config`: decide with the modes this deployment file runs with, instead of `paths`. */
  config?: string;
  /** `--args`: the call's arguments, decided by the rule's `commands` and `paths` patterns. */
  args?: Record<string, unknown>;
  /** `--workspace`: the root paths in `args` resolve against (default `cwd`). */
  workspace?: string;
  /**
   * `--tools`: a tool catalog: its hints decide a TOOL given without `--annotations`, and its names, beside the
   * built-in tools, are what a misspelt TOOL is matched against.
   */
  catalog?: string;
}

/**
 * Decides one tool in one mode.
 * @param options the mode, tool, hints and where to load policies from
 * @returns the decision, or why there is none (an unknown mode, or files that cannot load)
 */
export async function runCheck(options: RunCheckOptions): Promise<CheckReport> {
  let policies: CompiledPolicySet;
  let documents: readonly SourceDocument[] = [];
  // One catalog: the built-in tools' own annotations, the `--tools` file's, and with `--config` that deployment's
  // trust in each MCP server. A call that declares no hints is decided with it, as the gate decides it.
  const catalog = await loadToolSet(options.catalog, options.cwd, options.config);
  if ('kind' in catalog) return catalog;
  const tools = options.catalog === undefined ? [] : catalog.tools;
  const known = [...builtinToolCatalog(), ...tools];
  if (options.config !== undefined) {
    const deployed = await deploymentPolicies(resolve(options.cwd, options.config), { catalog: tools });
    const errors = deployed.diagnostics.filter((d) => d.severity === 'error');
    if (!deployed.policies) return loadFailed(errors);
    policies = deployed.policies;
    documents = deployed.documents;
  } else {
    const load = await loadPolicySources(defaultPaths(options.paths, options.cwd), {
      builtin: options.builtin !== false,
      cwd: options.cwd,
    });
    const errors = load.diagnostics.filter((d) => d.severity === 'error');
    // Fail closed: a refused file could have narrowed the mode, so no answer is better than a wrong one.
    if (errors.length > 0) return loadFailed(errors);
    policies = compilePolicies(load.documents, { tools });
    documents = load.documents;
  }
  if (policies.get(options.mode) === undefined)
    return { kind: 'unknown-mode', mode: options.mode, modes: [...policies.modes.keys()] };
  const call: ToolCall = { name: options.tool };
  if (options.hints) call.hints = options.hints;
  // Visibility is by name, as the tool view sees it: shown unless every call to the tool is denied.
  const visible = policies.get(options.mode)!.visible(options.tool, options.hints);
  if (options.args !== undefined) call.arguments = options.args;
  const verdict =
    options.args === undefined
      ? authorize(policies, options.mode, call)
      : authorize(
          policies,
          options.mode,
          call,
          workspaceChecks(resolve(options.cwd, options.workspace ?? '.')),
        );
  const report: CheckReport = {
    kind: 'decided',
    mode: options.mode,
    tool: options.tool,
    decision: verdict.decision,
    visible,
    reason: verdict.ruleReason ?? null,
    rule: verdict.rule,
  };
  const hint =
    unknownToolHint(options.tool, verdict.rule, known, documents) ??
    (options.args === undefined ? withoutArgsHint(verdict) : undefined);
  if (hint !== undefined) report.hint = hint;
  // The sandbox the call would run in, as the gate hands it to the tool: only a program tool's call that runs.
  const setting = policies.get(options.mode)!.sandboxFor?.(options.tool);
  if (verdict.decision !== 'deny' && runsPrograms(options.tool)) {
    report.sandbox = setting ? { kind: setting.kind, rule: setting.rule } : { kind: 'none' };
  }
  if (options.args === undefined) return report;
  const args: CheckArguments = { subject: verdict.subject ?? null, message: verdict.reason };
  if (verdict.pattern) args.pattern = verdict.pattern;
  if (verdict.commands) args.commands = verdict.commands;
  return { ...report, arguments: args };
}

/**
 * A did-you-mean for a TOOL no rule names: likely a typo, since it is neither a known tool (built-in, `--tools`)
 * nor named by a rule, and a known name is close to it. The answer stays what the policy decides (`wrte` is
 * denied by plan's default); the hint only says why that may not be the question meant.
 * @returns the hint, or undefined when the name is known, named by a rule, or near nothing
 */
function unknownToolHint(
  tool: string,
  rule: RuleRef,
  known: readonly ToolCatalogEntry[],
  documents: readonly SourceDocument[],
): string | undefined {
  if (rule.selector === tool) return undefined;
  const rows = collectToolRows([documents], known, 'catalog');
  const names = rows.filter((r) => r.source === 'catalog' || r.source === 'rule').map((r) => r.name);
  if (names.includes(tool)) return undefined;
  const [near] = suggest(tool, names);
  if (near === undefined) return undefined;
  const by =
    rule.selector === 'default' || rule.selector.startsWith('effects.')
      ? ''
      : ` (\`${rule.selector}\` decided)`;
  return `no rule names \`${tool}\`${by}; did you mean \`${near}\`?`;
}

/**
 * Why a rule written `decision: allow` with `paths:` or `commands:` answers `ask` when no `--args` is given: the
 * argument its patterns judge is missing, and a call they cannot judge is never allowed.
 * @returns the hint, or undefined when the answer did not come from a missing argument asking
 */
function withoutArgsHint(verdict: Verdict): string | undefined {
  const argument = /^\(argument `(.+)`\)$/.exec(verdict.subject ?? '')?.[1];
  if (argument === undefined || verdict.decision !== 'ask') return undefined;
  const example = argument === 'command' ? 'git status' : 'src/index.ts';
  return (
    `\`${verdict.rule.selector}\` decides by the call's \`${argument}\`, and without --args there is none: a call ` +
    `its patterns cannot judge is never allowed, so it asks; decide one call with --args '${JSON.stringify({ [argument]: example })}'`
  );
}

/**
 * Parses `--args JSON`: the call's arguments, a JSON object.
 * @throws UsageError for anything else
 */
export function parseArgs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `\`--args\` is not JSON: ${(error as Error).message}`,
      'quote it: --args \'{"command":"git log -5"}\'',
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(
      "`--args` must be a JSON object of the call's arguments",
      'for example --args \'{"path":"notes/a.md"}\'',
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Parses `--annotations readOnly,destructive=false,...` into hints.
 * @throws UsageError for an unknown hint or value
 */
export function parseAnnotations(text: string): Hints {
  const hints: Hints = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name = '', value = 'true'] = item.split('=', 2);
    if (!(HINT_NAMES as readonly string[]).includes(name)) {
      const near = suggest(name, HINT_NAMES);
      throw new UsageError(
        `unknown annotation \`${name}\``,
        near.length > 0
          ? `did you mean \`${near[0]}\`?`
          : `use ${HINT_NAMES.map((h) => `\`${h}\``).join(', ')}`,
      );
    }
    if (value !== 'true' && value !== 'false') {
      throw new UsageError(`annotation \`${name}\` must be \`true\` or \`false\`, not \`${value}\``);
    }
    hints[name as HintName] = value === 'true';
  }
  return hints;
}

const spec: CommandSpec = {
  name: 'check',
  summary: 'show how a mode decides one tool, and which rule decided',
  usage:
    'check MODE TOOL [PATH...] [--config FILE] [--tools CATALOG] [--annotations HINTS] [--args JSON [--workspace DIR]] [--format text|json] [--no-builtin]',
  description: [
    'Loads policies as lint does (the built-in plan first, then each PATH; without PATH, policies/ in the',
    'current folder if it exists) and prints the decision for TOOL in MODE: allow, ask or deny, whether the model sees the',
    'tool, the rule reason, and the deciding rule with its file:line:column. When no document decides, the',
    'rule is `default` with no location and the tool is denied.',
    '',
    'HINTS are the tool declared annotations: readOnly, destructive, idempotent, openWorld, comma-separated,',
    'each optionally `=false` (absent ones take MCP defaults). Without --annotations, TOOL is the tool of that',
    'name in the catalog: a built-in tool with its own annotations (as the agent decides it), else a tool of',
    '--tools CATALOG with its hints (with --config, only when the deployment trusts its server), else MCP defaults.',
    '',
    'With --config FILE, the modes are those the deployment FILE (a cordis.yml) runs with.',
    '',
    "With --args JSON, the call is decided by its arguments too: the rule's `commands` patterns judge each",
    'simple command of a script, its `paths` patterns the path (resolved against --workspace DIR, default the',
    'current folder, following symlinks). The output adds the subject (the command or path that decided), the',
    'pattern, and for a script each command with its decision and rule.',
    '',
    'A TOOL that no rule names and that is not a known tool (a built-in tool, or one of --tools CATALOG) gets a',
    'hint with the closest known name: no rule names `wrte`; did you mean `write`? (the decision is unchanged).',
    '',
    'Exit codes: 0 whatever the decision; 1 an unknown MODE (the modes that exist are listed) or a policy',
    'file that does not load; 2 usage errors, or a path or deployment that cannot be read.',
  ].join('\n'),
  options: [
    {
      name: 'annotations',
      type: 'string',
      value: 'HINTS',
      description: "the tool's hints, e.g. readOnly,openWorld=false",
    },
    {
      name: 'format',
      type: 'string',
      value: 'NAME',
      choices: ['text', 'json'],
      description: 'output format, default text',
    },
    { name: 'no-builtin', type: 'boolean', description: 'do not load the built-in plan policy' },
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      description: 'decide with the modes of this deployment (cordis.yml) instead of PATH',
    },
    {
      name: 'args',
      type: 'string',
      value: 'JSON',
      description: 'the call\'s arguments, e.g. \'{"command":"git log -5"}\'',
    },
    {
      name: 'workspace',
      type: 'string',
      value: 'DIR',
      description: 'the workspace paths in --args resolve against, default the current folder',
    },
    {
      name: 'tools',
      type: 'string',
      value: 'CATALOG',
      description:
        'a tool catalog (JSON): the hints of TOOL, and the names a misspelt TOOL is matched against',
    },
  ],
  examples: [
    'check plan write',
    'check plan bash --config cordis.yml',
    'check plan mcp__gh__list_issues --annotations readOnly',
    'check plan bash --args \'{"command":"git log -5"}\'',
    'check plan read --args \'{"path":".env"}\' --workspace ~/project',
    'check review bash policies/ --format json',
  ],
};

/** The command-line adapter of `check`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    const [mode, tool, ...paths] = args.positionals;
    if (mode === undefined || tool === undefined) {
      throw new UsageError(mode === undefined ? 'missing MODE and TOOL' : 'missing TOOL');
    }
    const annotations = args.options.get('annotations');
    const callArgs = stringOption(args, 'args');
    const workspace = stringOption(args, 'workspace');
    if (workspace !== undefined && callArgs === undefined) {
      throw new UsageError('`--workspace` needs `--args`: it is where the paths in them resolve');
    }
    const config = stringOption(args, 'config');
    const catalog = stringOption(args, 'tools');
    if (config !== undefined && paths.length > 0) {
      throw new UsageError('`--config` and policy paths cannot be combined');
    }
    if (config !== undefined && args.options.has('no-builtin')) {
      throw new UsageError(
        '`--config` and `--no-builtin` cannot be combined: a deployment loads the built-in plan',
      );
    }
    const report = await runCheck({
      ...(config === undefined ? {} : { config }),
      mode,
      tool,
      ...(typeof annotations === 'string' ? { hints: parseAnnotations(annotations) } : {}),
      ...(callArgs === undefined ? {} : { args: parseArgs(callArgs) }),
      ...(workspace === undefined ? {} : { workspace }),
      ...(catalog === undefined ? {} : { catalog }),
      paths,
      builtin: !args.options.has('no-builtin'),
      cwd: env.cwd,
    });
    switch (report.kind) {
      case 'decided':
        return {
          kind: 'ok',
          stdout:
            args.options.get('format') === 'json' ? formatCheckJson(report) : formatCheckText(report, env),
        };
      case 'unknown-mode': {
        const near = suggest(report.mode, report.modes);
        const known = report.modes.length > 0 ? report.modes.map((m) => `\`${m}\``).join(', ') : 'none';
        const hint = near.length > 0 ? `\nhelp: did you mean \`${near[0]}\`?` : '';
        return {
          kind: 'unknown-mode',
          stderr: `error: unknown mode \`${report.mode}\`: the modes are ${known}${hint}\n`,
        };
      }
      case 'load-failed':
        return loadFailedOutcome(report, 'no decision is made');
    }
  },
};

/** What the gate checks against a real workspace: paths resolve through its symlinks, git reads its repository. */
function workspaceChecks(workspace: string): AuthorizeOptions {
  return { resolvePath: fsPathResolver(workspace), checkProgram: fsProgramCheck(workspace) };
}
