/**
 * The notices `chat` and `acp` print at start, whatever the trust, for what a deployment changes that a user
 * would not expect: plan mode made less restrictive than the built-in plan, a workspace outside the current
 * folder, and a model endpoint other than the default (it receives the key: `DEEPSEEK_API_KEY`, or the variable
 * `apiKeyEnv` names).
 *
 * Plan is compared, decision by decision, against the built-in plan alone. The tools asked about are the host's
 * built-in tools and `exit_plan_mode`, every name the plan's rules mention, one sample name per glob, and a tool
 * nobody named; each is asked with no hints, with its declared hints, and with every one of the 16 combinations
 * of the four hints, so a widening through `effects` or a glob is found as well as one by name. An
 * `override: true` document for plan is always named, even when it widens nothing. Pure apart from loading the
 * built-in plan and the policy files the deployment names.
 * @module
 */
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { compilePolicies } from '../compile/compile.js';
import { compareRestrictiveness } from '../compile/document.js';
import { loadPolicySources } from '../compile/load.js';
import type { CompiledPolicy, DecideResult, Hints, RuleRef } from '../compile/types.js';
import { collectToolRows } from '../compile/grid.js';
import { defaultToolCatalog } from './default-tools.js';
import { whereOf, type ResolvedEntry } from '../deploy/index.js';

/** What the notices are computed against. */
export interface NoticeOptions {
  /** The current folder: a workspace outside it is named. */
  cwd: string;
  /** The command line chose the workspace (`--workspace`, the demo): the file's does not apply. */
  forceWorkspace?: boolean;
  /** `--model-script` replaces the deployment's model: its endpoint is not used. */
  modelScript?: boolean;
}

const PREFIX = 'dsh-mode: notice: ';
/** Widened tools listed by name before the rest are counted. */
const MAX_LISTED = 12;
const HINT_NAMES = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;
/** Every combination of the four hints. */
const HINT_SETS: readonly Hints[] = Array.from({ length: 16 }, (_, bits) =>
  Object.fromEntries(HINT_NAMES.map((name, i) => [name, (bits & (1 << i)) !== 0])),
);

let builtinPlan: Promise<CompiledPolicy | undefined> | undefined;

/**
 * The notices for a deployment's entries (checked, not started).
 * @param entries the deployment's entries
 * @param options the current folder and what the command line overrides
 * @returns one line per notice, each starting with `dsh-mode: notice: `
 */
export async function deploymentNotices(
  entries: readonly ResolvedEntry[],
  options: NoticeOptions,
): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of entries) {
    if (entry.name === 'mode') for (const line of await planNotices(entry)) lines.push(line);
    if (entry.name === 'host' && !options.forceWorkspace && typeof entry.config.workspace === 'string') {
      const workspace = entry.config.workspace;
      if (!inside(workspace, options.cwd)) {
        lines.push(
          `${PREFIX}the workspace is \`${workspace}\` (\`workspace\` at ${where(entry, ['workspace'])}), outside the current folder \`${options.cwd}\`: the tools read and write there`,
        );
      }
    }
    if (entry.name === 'openai' && !options.modelScript && typeof entry.config.baseUrl === 'string') {
      const { DEFAULT_BASE_URL } = await import('../host/models/openai.js');
      const url = entry.config.baseUrl.replace(/\/+$/, '');
      if (url !== DEFAULT_BASE_URL) {
        lines.push(
          `${PREFIX}model requests go to \`${url}\` (\`baseUrl\` at ${where(entry, ['baseUrl'])}), not the default \`${DEFAULT_BASE_URL}\`: that host receives ${typeof entry.config.apiKey === 'string' ? 'the `apiKey` of this file' : `your ${typeof entry.config.apiKeyEnv === 'string' ? entry.config.apiKeyEnv : 'DEEPSEEK_API_KEY'}`}`,
        );
      }
    }
  }
  return lines;
}

/** The notices for one `mode` entry: an override of plan, and every tool it decides less restrictively. */
async function planNotices(entry: ResolvedEntry): Promise<string[]> {
  const plan = entry.modes?.get('plan');
  const base = await loadBuiltinPlan();
  if (plan === undefined || base === undefined) return [];
  const lines: string[] = [];
  for (const doc of plan.documents ?? []) {
    if (!doc.override) continue;
    const range = doc.source.locate(['override']);
    const at = `${doc.source.file ?? entry.file}${range ? `:${range.start.line}:${range.start.column}` : ''}`;
    lines.push(`${PREFIX}plan mode is replaced by an \`override: true\` document at ${at}`);
  }
  const widened = await planWidenings(plan, base);
  if (widened.length > 0) {
    const shown = widened.slice(0, MAX_LISTED).map((w) => `  ${w}`);
    const more = widened.length > MAX_LISTED ? [`  … and ${widened.length - MAX_LISTED} more`] : [];
    lines.push([`${PREFIX}plan mode allows more than the built-in plan:`, ...shown, ...more].join('\n'));
  }
  return lines;
}

/**
 * The tools a composed plan decides less restrictively than the built-in plan.
 * @param plan the composed plan
 * @param base the built-in plan alone
 * @returns one line per widened tool: its name, the change, the deciding rule, and the hints if they matter
 */
export async function planWidenings(plan: CompiledPolicy, base: CompiledPolicy): Promise<string[]> {
  const sources = [plan, base].map((p) => (p.documents ?? []).map((d) => d.source));
  const rows = collectToolRows(sources, await defaultToolCatalog(), 'builtin');
  const lines: string[] = [];
  for (const row of rows) {
    const probes: (Hints | undefined)[] = [row.hints, undefined, ...HINT_SETS];
    for (const hints of probes) {
      const now = plan.decide(row.name, hints);
      const before = base.decide(row.name, hints);
      if (!wider(row.name, now, before)) continue;
      const given = hints === row.hints || hints === undefined ? '' : ` when it declares ${hintText(hints)}`;
      lines.push(`${row.label}: ${before.decision} → ${now.decision}${given} (${ruleText(now.rule)})`);
      break;
    }
  }
  return lines;
}

/** `exit_plan_mode` is asked whatever its decision says, so allow and ask are the same for it. */
function wider(name: string, now: DecideResult, before: DecideResult): boolean {
  const rank = (d: DecideResult) =>
    name === 'exit_plan_mode' && d.decision === 'allow' ? 'ask' : d.decision;
  return compareRestrictiveness(rank(now), rank(before)) < 0;
}

function loadBuiltinPlan(): Promise<CompiledPolicy | undefined> {
  builtinPlan ??= loadPolicySources([], { builtin: true }).then((load) =>
    compilePolicies(load.documents).get('plan'),
  );
  return builtinPlan;
}

function hintText(hints: Hints): string {
  return HINT_NAMES.map((name) => `${name}: ${String(hints[name] === true)}`).join(', ');
}

function ruleText(rule: RuleRef): string {
  return rule.file === null ? rule.selector : `${rule.selector} at ${rule.file}:${rule.line}:${rule.column}`;
}

/** `file:line:column` of a key's value in an entry's config. */
function where(entry: ResolvedEntry, path: string[]): string {
  return whereOf({ file: entry.file, range: entry.locate(path) ?? entry.range });
}

/** Whether `path` is `folder` or inside it, symbolic links of the existing parts resolved. */
function inside(path: string, folder: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const target = real(path);
  const root = real(folder);
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep);
}
