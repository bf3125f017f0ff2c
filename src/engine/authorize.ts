/**
 * `authorize(policies, mode, call) → Verdict`: the engine's decision for one tool call, pure and synchronous, with
 * no session, no host and no cordis. The gate, the tool view (visible = not deny), `check`, `matrix` and
 * `diff` are adapters over it, and so can any other host be.
 *
 * What it holds on top of the compiled policy:
 * - the default mode is the absence of policy: every tool is allowed, except `exit_plan_mode`, which is denied
 *   (there is no plan to approve);
 * - a mode the policies do not define fails closed: every tool is denied, and the reason tells the model to ask
 *   the user to switch mode;
 * - `exit_plan_mode` always asks where it is not denied: a mode that allows it must not let the model leave it
 *   without a human's approval;
 * - a call of a tool that runs programs (`bash`) that is allowed or asked in a mode whose `sandbox` is `read-only`
 *   carries that requirement (`sandbox`): the host must run it in the OS sandbox, or deny it. The default mode
 *   never requires one.
 *
 * `reason` is the text the gate gives: the deny reason the model reads (it names the mode, and in a mode where
 * `exit_plan_mode` is available it points there), or the reason shown with the approval question. Where that
 * deny reason tells the model what to do next, `userReason` says it to the user instead (a chat's tool line).
 * `message` is one line for people that also names the deciding rule and where it is written.
 * @module
 */
import type {
  CallDecision,
  CommandDecision,
  CompiledPolicy,
  Decision,
  DecideCallOptions,
  Hints,
  PathResolver,
  ProgramCheck,
  RuleRef,
  SandboxSetting,
} from '../compile/types.js';
// The one value import from compile: pure, so authorize still loads nothing of Node's.
import { shownFile } from '../compile/builtin-plan.js';
import { DEFAULT_MODE, EXIT_PLAN_MODE } from './vocabulary.js';

/** What `compilePolicies` returns, or any set that finds a compiled mode by name. */
export interface PolicyLookup {
  get(mode: string): CompiledPolicy | undefined;
}

/**
 * One tool call. `hints` use the policy language's short names; absent ones take MCP's defaults. A call without
 * `hints` is the catalogued tool of its name: the policy's tool catalog gives them (a built-in tool's own
 * annotations), or MCP's defaults for a tool it does not know.
 */
export interface ToolCall {
  name: string;
  arguments?: unknown;
  hints?: Hints;
}

/** The engine's answer for one call. */
export interface Verdict {
  decision: Decision;
  /** The mode judged in, as given. */
  mode: string;
  /** The deciding rule: a selector with its file:line:column, or one of the engine's own rules below. */
  rule: RuleRef;
  /** The command or path that decided, when the deciding rule looked at the call's arguments. */
  subject?: string;
  /** The argument pattern that decided, with its location, when one did. */
  pattern?: RuleRef;
  /** For a script: each simple command with its decision and rule. */
  commands?: CommandDecision[];
  /** The text the gate gives the model (deny) or the approver (ask); for allow, a sentence saying so. */
  reason: string;
  /** One line for people: the decision, the tool, the mode and the deciding rule. */
  message: string;
  /** The deciding rule's own `reason`, when it wrote one. */
  ruleReason?: string;
  /** For a deny whose `reason` tells the model what to do next: the reason in words for the user. */
  userReason?: string;
  /**
   * The OS sandbox the call must run in, with the `sandbox` key that requires it: set on an allow or ask of a tool
   * that runs programs (`bash`) in a mode whose composed setting is `read-only`. The host runs the call in that
   * sandbox or denies it; it never runs such a call bare. Absent means no sandbox is required.
   */
  sandbox?: SandboxSetting;
}

/** The rule reported for every tool of a mode the policies do not define. */
export const UNDEFINED_MODE_RULE: RuleRef = Object.freeze({
  selector: '(mode not defined)',
  file: null,
  line: null,
  column: null,
});

/** The rule reported in the default mode, which has no policy. */
export const DEFAULT_MODE_RULE: RuleRef = Object.freeze({
  selector: '(default mode)',
  file: null,
  line: null,
  column: null,
});

/**
 * The hints the engine's `exit_plan_mode` declares (its annotations in the built-in tool catalog, which a compiled
 * policy decides a call that declares none with).
 */
export const EXIT_PLAN_MODE_HINTS: Readonly<Required<Hints>> = Object.freeze({
  readOnly: false,
  destructive: false,
  idempotent: false,
  openWorld: false,
});

/** What the reason texts need to know about the deployment. */
export interface ModeView {
  /** Whether the deployment can run the mode: `default`, or a defined one. */
  isDefined(mode: string): boolean;
  /** Whether the model sees the tool in the mode (its decision is not deny). */
  visible(mode: string, name: string): boolean;
}

/**
 * The deny reason for `name` in `mode`, in words for the person watching (a chat's tool line), when the model's
 * reason ({@link denyReason}) tells the model what to do next: it says what the user can do instead.
 * @param view the deployment
 * @param mode the mode judged in
 * @param name the tool
 * @param ruleReason the deciding rule's own reason, if it has one
 * @param detail what in the call's arguments decided
 * @returns the sentence, or undefined when the model's reason serves the user as it is
 */
export function userDenyReason(
  view: ModeView,
  mode: string,
  name: string,
  ruleReason?: string,
  detail?: string,
): string | undefined {
  if (mode === DEFAULT_MODE || ruleReason) return undefined;
  const tool = `tool "${name}" is not available in ${mode} mode`;
  const tail = detail === undefined ? '' : `: ${detail}`;
  if (!view.isDefined(mode)) {
    return `${tool}${tail}: this deployment does not define ${mode} mode, so every tool is denied until you switch mode`;
  }
  if (name !== EXIT_PLAN_MODE && view.visible(mode, EXIT_PLAN_MODE)) {
    return `${tool} until you approve a plan${tail}`;
  }
  return undefined;
}

/**
 * The deny reason for `name` in `mode`.
 * @param view the deployment
 * @param mode the mode judged in
 * @param name the tool
 * @param ruleReason the deciding rule's own reason, if it has one
 * @param detail what in the call's arguments decided (the quoted command or path and the pattern)
 * @returns the reason given to the model
 */
export function denyReason(
  view: ModeView,
  mode: string,
  name: string,
  ruleReason?: string,
  detail?: string,
): string {
  const tool = `tool "${name}" is not available in ${mode} mode`;
  const head = detail === undefined ? tool : `${tool}: ${detail}`;
  if (mode === DEFAULT_MODE) return `${head}: there is no plan to approve outside a planning mode`;
  if (!view.isDefined(mode)) {
    const why = `this deployment does not define ${mode} mode, so every tool is denied`;
    return `${head}: ${why}; ask the user to switch mode`;
  }
  if (ruleReason) return `${head}: ${ruleReason}`;
  if (name !== EXIT_PLAN_MODE && view.visible(mode, EXIT_PLAN_MODE)) {
    return `${head}; keep planning and present your plan with ${EXIT_PLAN_MODE} when ready`;
  }
  return head;
}

/**
 * The ask reason for `name` in `mode`.
 * @param mode the mode judged in
 * @param name the tool
 * @param ruleReason the deciding rule's own reason, if it has one
 * @returns the reason shown with the approval question
 */
export function askReason(mode: string, name: string, ruleReason?: string): string {
  if (ruleReason) return ruleReason;
  if (name === EXIT_PLAN_MODE) return `approve the plan to leave ${mode} mode`;
  return `tool "${name}" needs approval in ${mode} mode`;
}

/** Options of {@link authorize}. */
export interface AuthorizeOptions {
  /**
   * Resolves path arguments against the session's workspace (`fsPathResolver(workspace)` for a real one). Without
   * it paths resolve lexically with no workspace: relative paths count as workspace-relative and every absolute
   * path as outside, so no absolute path is ever allowed by a pattern.
   */
  resolvePath?: PathResolver;
  /**
   * Checks the workspace before a command pattern's allow lets a program run that the workspace configures (git
   * and its repository's own config and hooks): `fsProgramCheck(workspace)` for a real one. Without it the
   * decision judges the command text alone.
   */
  checkProgram?: ProgramCheck;
}

/**
 * Decides one call in one mode: by name, then, when the deciding rule has `commands` or `paths`, by the call's
 * arguments. A tool whose mode has no argument rules costs one memoised lookup and no parsing.
 * @param policies the compiled modes (`compilePolicies`); `default` is never looked up
 * @param mode the mode to judge in (for a session: its landed mode)
 * @param call the tool name, its arguments and its declared hints
 * @param options how paths resolve
 * @returns the verdict
 */
export function authorize(
  policies: PolicyLookup,
  mode: string,
  call: ToolCall,
  options: AuthorizeOptions = {},
): Verdict {
  const { name } = call;
  const view = viewOf(policies);
  if (mode === DEFAULT_MODE) {
    return allowedInDefault(name)
      ? verdict('allow', mode, name, DEFAULT_MODE_RULE, `the default mode has no policy`)
      : verdict('deny', mode, name, DEFAULT_MODE_RULE, denyReason(view, mode, name));
  }
  const policy = policies.get(mode);
  if (policy === undefined) {
    const out = verdict('deny', mode, name, UNDEFINED_MODE_RULE, denyReason(view, mode, name));
    return withUserReason(out, userDenyReason(view, mode, name));
  }
  // A call that declares no hints is decided with the policy's tool catalog (the built-in tools' own
  // annotations, `exit_plan_mode`'s among them), as every other decider is.
  const hints = call.hints;
  const r: CallDecision = policy.decideCall
    ? policy.decideCall(
        hints === undefined
          ? { name, arguments: call.arguments }
          : { name, arguments: call.arguments, hints },
        decideOptions(options),
      )
    : policy.decide(name, hints);
  const own = r.reason;
  const why = subjectText(r);
  let out: Verdict;
  if (r.decision === 'deny') {
    out = verdict('deny', mode, name, r.rule, denyReason(view, mode, name, own, why), own);
    withUserReason(out, userDenyReason(view, mode, name, own, why));
  } else if (r.decision === 'ask' || name === EXIT_PLAN_MODE) {
    // The exit always asks: a mode that allows it (`default: allow`, a glob) must not let the model leave it,
    // and run what it denies, without a human's approval.
    const head = askReason(mode, name, own);
    out = verdict('ask', mode, name, r.rule, why === undefined ? head : `${head}: ${why}`, own);
  } else {
    const head = own ?? `tool "${name}" is allowed in ${mode} mode`;
    out = verdict('allow', mode, name, r.rule, why === undefined ? head : `${head}: ${why}`, own);
  }
  if (r.subject !== undefined) out.subject = r.subject;
  if (r.pattern !== undefined) out.pattern = r.pattern;
  if (r.commands !== undefined) out.commands = r.commands;
  const sandbox = policy.sandboxFor?.(name);
  if (out.decision !== 'deny' && sandbox?.kind === 'read-only') out.sandbox = sandbox;
  return out;
}

function decideOptions(options: AuthorizeOptions): DecideCallOptions {
  const out: DecideCallOptions = {};
  if (options.resolvePath) out.resolvePath = options.resolvePath;
  if (options.checkProgram) out.checkProgram = options.checkProgram;
  return out;
}

/**
 * What in the arguments decided: `"git push origin" is denied by \`git push **\` at plan.yaml:40:7`, or why the
 * command or path could not be analysed.
 */
function subjectText(r: CallDecision): string | undefined {
  if (r.subject === undefined) return undefined;
  const quoted = JSON.stringify(r.subject.length > 200 ? `${r.subject.slice(0, 197)}...` : r.subject);
  if (r.unanalysable) return `${quoted} cannot be analysed: ${r.note ?? 'unknown construct'}`;
  if (r.withheld && r.pattern !== undefined)
    return `${quoted} matches \`${r.pattern.selector}\`${at(r.pattern)}, but ${r.note ?? 'the workspace check withheld it'}`;
  const verb = r.decision === 'deny' ? 'is denied by' : 'matches';
  const text =
    r.pattern === undefined
      ? `${quoted} matches no pattern of \`${(r.unmatched ?? r.rule).selector}\``
      : `${quoted} ${verb} \`${r.pattern.selector}\`${at(r.pattern)}`;
  return r.note === undefined ? text : `${text} (${r.note})`;
}

function at(rule: RuleRef): string {
  return rule.file === null ? '' : ` at ${shownFile(rule.file)}:${rule.line ?? '?'}:${rule.column ?? '?'}`;
}

/**
 * Whether the model sees a tool in a mode, as the tool view decides it: by name, shown unless every call to
 * it is denied (for a tool with argument rules: unless its base is deny and no pattern allows or asks). Equal to
 * `authorize(...).decision !== 'deny'` for a tool without argument rules.
 * @param hints the tool's declared hints (default: the policy's tool catalog's)
 * @returns true when the tool is visible
 */
export function isVisible(policies: PolicyLookup, mode: string, name: string, hints?: Hints): boolean {
  if (mode === DEFAULT_MODE) return allowedInDefault(name);
  const policy = policies.get(mode);
  if (policy === undefined) return false;
  return policy.visible(name, hints);
}

/**
 * The default mode's whole rule: it has no policy, so every tool runs but the exit (there is no plan to approve).
 * @returns true when `name` is allowed in the default mode
 */
export function allowedInDefault(name: string): boolean {
  return name !== EXIT_PLAN_MODE;
}

function viewOf(policies: PolicyLookup): ModeView {
  return {
    isDefined: (mode) => mode === DEFAULT_MODE || policies.get(mode) !== undefined,
    visible: (mode, name) => {
      if (mode === DEFAULT_MODE) return allowedInDefault(name);
      return policies.get(mode)?.visible(name) ?? false;
    },
  };
}

function withUserReason(out: Verdict, userReason: string | undefined): Verdict {
  if (userReason !== undefined) out.userReason = userReason;
  return out;
}

function verdict(
  decision: Decision,
  mode: string,
  name: string,
  rule: RuleRef,
  reason: string,
  ruleReason?: string,
): Verdict {
  const where = at(rule);
  const message = `${decision} "${name}" in ${mode} mode by \`${rule.selector}\`${where}: ${reason}`;
  const out: Verdict = { decision, mode, rule, reason, message };
  if (ruleReason !== undefined) out.ruleReason = ruleReason;
  return out;
}
