/**
 * The notices `chat` and `acp` print at start, whatever the trust, for what a deployment changes that a user
 * would not expect: plan mode made less restrictive than the built-in plan (its decisions, or `bash` run without
 * the read-only sandbox), a workspace outside the current folder, and a model endpoint other than the default (it
 * receives the key: the file's `apiKey`, else the variable `apiKeyEnv` names, `DEEPSEEK_API_KEY` by default; the
 * notice says when that variable is not set, since then no key is sent).
 *
 * Plan is compared, decision by decision, against the built-in plan alone, over the built-in tools, by compile's
 * `findWidenings` (`../compile/widenings.ts`, which says which tools and hints are asked); this module only words
 * the notices. An `override: true` document for plan is always named, even when it widens nothing. Pure apart from loading the
 * built-in plan and the policy files the deployment names.
 * @module
 */
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import {
  builtinToolCatalog,
  compilePolicies,
  findWidenings,
  loadPolicySources,
  shownFile,
} from '../compile/index.js';
import type { CompiledPolicy, Hints, RuleRef } from '../compile/types.js';
import { whereOf, type ResolvedEntry } from '../deploy/index.js';

/** What the notices are computed against. */
export interface NoticeOptions {
  /** The current folder: a workspace outside it is named. */
  cwd: string;
  /** The command line chose the workspace (`--workspace`, the demo): the file's does not apply. */
  forceWorkspace?: boolean;
  /** `--model-script` replaces the deployment's model: its endpoint is not used. */
  modelScript?: boolean;
  /** The environment the model reads its key from (default the process's). */
  env?: NodeJS.ProcessEnv;
}

const PREFIX = 'dsh-mode: notice: ';
/** Widened tools listed by name before the rest are counted. */
const MAX_LISTED = 12;
const HINT_NAMES = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;

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
          `${PREFIX}model requests go to \`${url}\` (\`baseUrl\` at ${where(entry, ['baseUrl'])}), not the default \`${DEFAULT_BASE_URL}\`: ${keyNotice(entry.config, options.env ?? process.env)}`,
        );
      }
    }
  }
  return lines;
}

/**
 * What the endpoint receives, as the model reads its key (`../host/models/openai.ts`): a non-empty `apiKey` of the
 * file, else the variable `apiKeyEnv` names (`DEEPSEEK_API_KEY` by default), else no key at all.
 */
function keyNotice(config: Record<string, unknown>, env: NodeJS.ProcessEnv): string {
  if (typeof config.apiKey === 'string' && config.apiKey !== '')
    return 'that host receives the `apiKey` of this file';
  const variable = typeof config.apiKeyEnv === 'string' ? config.apiKeyEnv : 'DEEPSEEK_API_KEY';
  return env[variable]
    ? `that host receives your ${variable}`
    : `${variable} is not set, so no key is sent (that host would receive it once set)`;
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
  const lifted = sandboxLifted(plan, base);
  if (lifted !== undefined) lines.push(`${PREFIX}${lifted}`);
  const widened = planWidenings(plan, base);
  if (widened.length > 0) {
    const shown = widened.slice(0, MAX_LISTED).map((w) => `  ${w}`);
    const more = widened.length > MAX_LISTED ? [`  … and ${widened.length - MAX_LISTED} more`] : [];
    lines.push([`${PREFIX}plan mode allows more than the built-in plan:`, ...shown, ...more].join('\n'));
  }
  return lines;
}

/**
 * The tools a composed plan decides less restrictively than the built-in plan, as notice lines.
 * @param plan the composed plan
 * @param base the built-in plan alone
 * @returns one line per widened tool or call: its label, the change, the deciding rule or argument pattern, and the
 *   hints if they matter
 */
export function planWidenings(plan: CompiledPolicy, base: CompiledPolicy): string[] {
  return findWidenings(plan, base, builtinToolCatalog()).map((w) => {
    const given = w.hints === undefined ? '' : ` when it declares ${hintText(w.hints)}`;
    return `${w.label}: ${w.before} → ${w.after}${given} (${ruleText(w.pattern ?? w.rule)})`;
  });
}

/**
 * Whether a composed plan runs `bash` outside the read-only sandbox the built-in plan requires (only an `override:
 * true` document can do that), in words, or undefined when it does not, or shows no program tool.
 */
export function sandboxLifted(plan: CompiledPolicy, base: CompiledPolicy): string | undefined {
  if (base.sandbox?.kind !== 'read-only' || plan.sandbox?.kind === 'read-only') return undefined;
  const tools = builtinToolCatalog().filter((t) => t.runsPrograms && plan.visible(t.name, t.hints));
  if (tools.length === 0) return undefined;
  const set = plan.sandbox?.rule;
  const by = set
    ? `\`sandbox: none\`${set.file === null ? '' : ` at ${set.file}:${set.line}:${set.column}`}`
    : 'no `sandbox` key after the override';
  return `plan mode runs ${tools.map((t) => `\`${t.name}\``).join(', ')} without the read-only OS sandbox of the built-in plan (${by})`;
}

function loadBuiltinPlan(): Promise<CompiledPolicy | undefined> {
  builtinPlan ??= loadPolicySources([], { builtin: true }).then((load) =>
    compilePolicies(load.documents).get('plan'),
  );
  return builtinPlan;
}

function hintText(hints: Readonly<Hints>): string {
  return HINT_NAMES.map((name) => `${name}: ${String(hints[name] === true)}`).join(', ');
}

function ruleText(rule: RuleRef): string {
  return rule.file === null
    ? rule.selector
    : `${rule.selector} at ${shownFile(rule.file)}:${rule.line}:${rule.column}`;
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
