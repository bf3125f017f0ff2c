/**
 * `dsh-mode plans [--workspace DIR] [--session ID] [--format text|json]` lists the plans of a workspace's session
 * logs; `dsh-mode plans show REF [--out FILE]` prints one as Markdown. Both only read the logs (`plan-log.ts`):
 * the log stays the one home of a plan. `runPlans` returns a report and prints nothing.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { suggest } from '../../compile/index.js';
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec, Outcome } from '../command.js';
import { UsageError } from '../errors.js';
import {
  findPlans,
  parsePlanRef,
  readPlanLog,
  type PlanLog,
  type PlanRecord,
  type UnreadLog,
} from '../plan-log.js';
import { visible } from '../../apps/visible.js';

/** How many hex digits of a hash the list shows (and `show` takes at least 4 of). */
const SHORT_HASH = 12;

const spec: CommandSpec = {
  name: 'plans',
  summary: 'list the plans of the session logs, or print one as Markdown',
  usage: 'plans [show REF] [--workspace DIR] [--session ID] [--out FILE] [--format text|json]',
  description: [
    'Lists every plan a model proposed with exit_plan_mode in the session logs of a workspace',
    '(<DIR>/.dsh/sessions/*.jsonl), oldest first: when it was proposed, its reference SESSION:N (the Nth plan of',
    'that session), its outcome (approved, rejected, cancelled, unavailable, denied: refused before anyone was',
    'asked, failed: approved but the exit failed, pending: no answer in the log yet), whether the user edited it',
    'before answering (approving or rejecting it), its SHA-256 (the first 12 hex digits) and its title (its',
    'first heading).',
    '',
    '`plans show REF` prints one plan as Markdown: the text that was decided (the edited text when the user',
    'edited it). REF is a hash prefix of at least 4 hex digits, as the list shows it, or SESSION:N. On a',
    'terminal or a pipe, control characters of the plan are spelled out (\\x1b); --out FILE writes the exact text.',
    '',
    'The logs are only read: nothing is written beside them, and a log being written by a running session can be',
    'read at any time. A log that cannot be read is named on stderr with the reason; the others are still listed.',
    '',
    'Exit codes: 0 done (also when there are no plans); 2 a REF that is malformed, matches no plan or matches',
    'plans with different texts, an unknown --session, a log that cannot be read, a file that cannot be written,',
    'or another usage error.',
  ].join('\n'),
  options: [
    {
      name: 'workspace',
      type: 'string',
      value: 'DIR',
      description: 'the workspace whose .dsh/sessions logs are read (default .)',
    },
    { name: 'session', type: 'string', value: 'ID', description: 'only the plans of this session' },
    { name: 'out', type: 'string', value: 'FILE', description: 'with show: write the plan to FILE' },
    {
      name: 'format',
      type: 'string',
      value: 'FORMAT',
      choices: ['text', 'json'],
      description: 'the list as text (default) or JSON',
    },
  ],
  examples: ['plans', 'plans --session 20261130-064523-81b6db', 'plans show 3f2a9c --out approved-plan.md'],
};

/** Options of {@link runPlans}. */
export interface RunPlansOptions {
  cwd: string;
  workspace?: string;
  session?: string;
}

/**
 * Reads the plans.
 * @throws Error for an unknown session or a refused sessions folder
 */
export function runPlans(options: RunPlansOptions): PlanLog {
  return readPlanLog(resolve(options.cwd, options.workspace ?? '.'), options.session);
}

/** The command-line adapter of `plans`. */
export const command: CliCommand = {
  spec,
  async execute(args, env): Promise<Outcome> {
    const [sub, ref, extra] = args.positionals;
    if (sub !== undefined && sub !== 'show') {
      const near = suggest(sub, ['show']);
      throw new UsageError(
        `unknown argument \`${sub}\``,
        near.length > 0 ? 'did you mean `show`?' : 'use `plans` to list, `plans show REF` to print one',
      );
    }
    if (extra !== undefined) throw new UsageError(`unexpected argument \`${extra}\``);
    const out = stringOption(args, 'out');
    const format = stringOption(args, 'format');
    if (sub === undefined && out !== undefined) throw new UsageError('`--out` goes with `plans show REF`');
    if (sub === 'show' && format !== undefined)
      throw new UsageError('`--format` goes with the list, not `show`');
    if (sub === 'show' && ref === undefined)
      throw new UsageError('`plans show` needs a REF (a hash prefix or SESSION:N)');
    const parsed = ref === undefined ? null : parsePlanRef(ref);
    if (ref !== undefined && parsed === null) {
      return usage(
        `\`${visible(ref, 'line')}\` is not a plan reference: give a hash prefix of at least 4 hex digits or SESSION:N`,
      );
    }
    const workspace = stringOption(args, 'workspace');
    const session = stringOption(args, 'session') ?? (parsed?.kind === 'index' ? parsed.session : undefined);
    if (
      parsed?.kind === 'index' &&
      stringOption(args, 'session') !== undefined &&
      parsed.session !== session
    ) {
      throw new UsageError(`\`${ref}\` names session \`${parsed.session}\`, not --session \`${session}\``);
    }
    let log: PlanLog;
    try {
      log = runPlans({
        cwd: env.cwd,
        ...(workspace !== undefined ? { workspace } : {}),
        ...(session !== undefined ? { session } : {}),
      });
    } catch (error) {
      const message = (error as Error).message;
      if (session !== undefined && message.startsWith('no session journal at ')) {
        const dir = shown(resolve(env.cwd, workspace ?? '.', '.dsh', 'sessions'), env.cwd);
        return usage(`no session \`${visible(session, 'line')}\` in ${dir}`);
      }
      return { kind: session !== undefined ? 'usage' : 'io', stderr: `error: ${message}\n` };
    }
    const warnings = unreadText(log.unread, env.cwd);
    if (parsed === null) {
      const stdout = format === 'json' ? jsonList(log) : textList(log, env.cwd);
      return { kind: log.unread.length > 0 ? 'io' : 'ok', stdout, ...(warnings ? { stderr: warnings } : {}) };
    }
    const found = findPlans(log.plans, parsed);
    if (found.length === 0) {
      return usage(
        `no plan matches \`${ref}\` (${count(log.plans.length, 'plan')} in ${count(log.logs, 'session log')} under ${shown(log.dir, env.cwd)})`,
        warnings,
      );
    }
    const hashes = new Set(found.map((plan) => plan.sha256));
    if (hashes.size > 1) {
      const candidates = found.map(
        (plan) => `  ${plan.sha256.slice(0, SHORT_HASH)}  ${ref_(plan)}  ${title(plan)}`,
      );
      return usage(
        `\`${ref}\` matches ${hashes.size} different plans; give more digits:\n${candidates.join('\n')}`,
        warnings,
      );
    }
    const plan = found[0]!;
    const text = plan.plan.endsWith('\n') ? plan.plan : `${plan.plan}\n`;
    if (out === undefined)
      return { kind: 'ok', stdout: visible(text), ...(warnings ? { stderr: warnings } : {}) };
    try {
      await writeFile(resolve(env.cwd, out), text);
    } catch (error) {
      return { kind: 'io', stderr: `${warnings}error: cannot write ${out}: ${(error as Error).message}\n` };
    }
    return {
      kind: 'ok',
      stderr: `${warnings}wrote plan ${plan.sha256.slice(0, SHORT_HASH)} (${title(plan)}) to ${out}\n`,
    };
  },
};

function usage(message: string, warnings = ''): Outcome {
  return { kind: 'usage', stderr: `${warnings}error: ${message}\n` };
}

function ref_(plan: PlanRecord): string {
  return `${plan.session}:${plan.index}`;
}

function title(plan: PlanRecord): string {
  const text = visible(plan.title, 'line');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** A path as the user would type it from `cwd`. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

function unreadText(unread: readonly UnreadLog[], cwd: string): string {
  return unread
    .map((log) => {
      const file = shown(log.file, cwd);
      // The reader's messages name the file (and the line) themselves; others get it in front.
      const message = log.message.includes(log.file)
        ? log.message.split(log.file).join(file)
        : `${file}: ${log.message}`;
      return `warning: ${message}; this log was not read\n`;
    })
    .join('');
}

function textList(log: PlanLog, cwd: string): string {
  const mismatched = log.plans.filter((plan) => plan.recordedSha256 !== undefined);
  const notes = mismatched.map(
    (plan) =>
      `note: ${shown(plan.file, cwd)}: plan ${ref_(plan)} hashes to ${plan.sha256.slice(0, SHORT_HASH)}, but its approval/decided records ${visible(plan.recordedSha256!.slice(0, 64), 'line')}`,
  );
  if (log.plans.length === 0) {
    return `no plans in ${count(log.logs, 'session log')} under ${shown(log.dir, cwd)}\n`;
  }
  const rows = log.plans.map((plan) => [
    plan.time.replace(/\.\d+Z$/, 'Z'),
    ref_(plan),
    plan.outcome,
    plan.edited ? 'edited' : '',
    plan.sha256.slice(0, SHORT_HASH),
    title(plan),
  ]);
  const header = ['TIME', 'PLAN', 'OUTCOME', 'EDITED', 'HASH', 'TITLE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line), ...notes].join('\n') + '\n';
}

function jsonList(log: PlanLog): string {
  const plans = log.plans.map((plan) => ({
    ref: ref_(plan),
    session: plan.session,
    index: plan.index,
    time: plan.time,
    outcome: plan.outcome,
    edited: plan.edited,
    sha256: plan.sha256,
    title: plan.title,
    ...(plan.feedback !== undefined ? { feedback: plan.feedback } : {}),
    ...(plan.recordedSha256 !== undefined ? { recordedSha256: plan.recordedSha256 } : {}),
    plan: plan.plan,
  }));
  return `${JSON.stringify({ plans, unread: log.unread.map((u) => u.message) }, null, 2)}\n`;
}
