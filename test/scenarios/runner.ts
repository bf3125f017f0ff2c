/**
 * The recorded-scenario runner: starts the real built `dsh-mode acp` (bin/dsh-mode.mjs) as a child process in a
 * fresh temp workspace, drives it with the SDK's client connection over the child's stdio, and returns the
 * normalised JSON-RPC traffic (both directions, in the order the client saw or sent each message) and the
 * session's JSONL log. Times, the temp path, the session id and the package version are normalised, so goldens
 * are stable across runs and machines.
 *
 * `input.json`: `{ description, files?, script, permissionAnswers?, steps }` where `script` is the scripted
 * model's list of `{text?, tool_calls?}`, `permissionAnswers` a FIFO of `allow` | `reject` | `{reject: text}`
 * (feedback in `_meta.feedback`) | `cancel` (the client sends `session/cancel` and answers `cancelled`), and each
 * step one of
 * `{op: initialize}`, `{op: newSession}`, `{op: loadSession}` (the last session), `{op: setMode, mode}`,
 * `{op: setModeExpectError, mode}`, `{op: prompt, text}`, `{op: cancel}`, `{op: restart}` (the agent process
 * exits and a fresh one starts on the same workspace, with the script entries not used yet; the next steps
 * usually `initialize` and `loadSession`, which then reads the log a previous process wrote).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { checkedStream } from '../reliability/acp-client.js';
import { watchAgentMessages } from '../reliability/acp-schema.js';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/dsh-mode.mjs');

/** One protocol step of a scenario. */
export type Step =
  | { op: 'initialize' }
  | { op: 'newSession' }
  | { op: 'loadSession' }
  | { op: 'setMode'; mode: string }
  | { op: 'setModeExpectError'; mode: string }
  | { op: 'prompt'; text: string }
  | { op: 'cancel' }
  | { op: 'restart' };

/** A scenario's `input.json`. */
export interface ScenarioInput {
  description: string;
  /** Files seeded into the workspace before the agent starts. */
  files?: Record<string, string>;
  script: unknown[];
  permissionAnswers?: PermissionAnswer[];
  steps: Step[];
}

/** How the client answers one permission request; `{reject: text}` sends the text as `_meta.feedback`. */
export type PermissionAnswer = 'allow' | 'reject' | 'cancel' | { reject: string };

/** One recorded JSON-RPC message. */
export interface TrafficEntry {
  dir: 'client→agent' | 'agent→client';
  message: unknown;
}

/** What a run produced, normalised. */
export interface ScenarioResult {
  traffic: TrafficEntry[];
  /** The session log, one JSON event per line. */
  session: string;
  stderr: string;
}

/**
 * Runs one scenario folder.
 * @param dir the scenario folder (holding input.json)
 */
export async function runScenario(dir: string): Promise<ScenarioResult> {
  const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8')) as ScenarioInput;
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-scenario-')));
  try {
    return await drive(input, workspace);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function drive(input: ScenarioInput, workspace: string): Promise<ScenarioResult> {
  for (const [path, text] of Object.entries(input.files ?? {})) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), text);
  }
  const traffic: TrafficEntry[] = [];
  const answers = [...(input.permissionAnswers ?? [])];
  const state = { sessionId: null as string | null, stderr: '' };
  // Each `restart` ends the agent process and starts a fresh one on the same workspace.
  const segments: Step[][] = [[]];
  for (const step of input.steps) {
    if (step.op === 'restart') segments.push([]);
    else segments[segments.length - 1]!.push(step);
  }
  for (const steps of segments) {
    // A fresh process reads its script from the start: give it the entries earlier processes did not use
    // (one per model request, i.e. per logged assistant message).
    const used = state.sessionId === null ? 0 : countAnswers(workspace, state.sessionId);
    await runProcess(workspace, input.script.slice(used), steps, answers, traffic, state);
  }
  const { sessionId } = state;
  const log = sessionId === null ? '' : readFileSync(sessionFile(workspace, sessionId), 'utf8');
  const normalise = normaliser(workspace, sessionId);
  return {
    traffic: traffic.map((entry) => ({ dir: entry.dir, message: normalise(entry.message) })),
    session: log
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.stringify(normalise(JSON.parse(line))))
      .join('\n')
      .concat('\n'),
    stderr: state.stderr,
  };
}

function sessionFile(workspace: string, sessionId: string): string {
  return join(workspace, '.dsh/sessions', `${sessionId}.jsonl`);
}

function countAnswers(workspace: string, sessionId: string): number {
  return readFileSync(sessionFile(workspace, sessionId), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"assistant/message"')).length;
}

/** Runs one agent process: starts it, drives `steps` over one client connection, and waits for its exit. */
async function runProcess(
  workspace: string,
  script: unknown[],
  steps: Step[],
  answers: PermissionAnswer[],
  traffic: TrafficEntry[],
  state: { sessionId: string | null; stderr: string },
): Promise<void> {
  const scriptFile = join(workspace, '.scenario-script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const env = { ...process.env };
  delete env.DEEPSEEK_API_KEY;
  const child = spawn(process.execPath, [BIN, 'acp', '--model-script', scriptFile], {
    cwd: workspace,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));

  const stream = checkedStream(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
    watchAgentMessages(),
    (dir, message) => traffic.push({ dir, message: structuredClone(message) }),
  );

  const client = acp
    .client({ name: 'scenario-runner' })
    .onNotification(acp.methods.client.session.update, () => {})
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, agent }) => {
      const answer = answers.shift();
      if (answer === undefined) throw new Error('the scenario has no permission answer left');
      if (answer === 'cancel') {
        await agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
        return { outcome: { outcome: 'cancelled' } };
      }
      const kind = answer === 'allow' ? 'allow_once' : 'reject_once';
      const option = params.options.find((o) => o.kind === kind);
      if (!option) throw new Error(`no ${kind} option offered`);
      const meta = typeof answer === 'object' ? { _meta: { feedback: answer.reject } } : {};
      return { outcome: { outcome: 'selected', optionId: option.optionId }, ...meta };
    });

  try {
    await client.connectWith(stream, async (agent) => {
      for (const step of steps) await runStep(agent, step, workspace, state);
    });
  } catch (error) {
    child.stdin.end();
    const code = await exited;
    throw new Error(`${(error as Error).message} (dsh-mode acp exited with ${code}; stderr:\n${stderr})`);
  }
  child.stdin.end();
  const code = await exited;
  state.stderr += stderr;
  if (code !== 0) throw new Error(`dsh-mode acp exited with ${code}:\n${stderr}`);
}

async function runStep(
  agent: acp.ClientContext,
  step: Step,
  workspace: string,
  state: { sessionId: string | null },
): Promise<void> {
  const current = (): string => {
    if (state.sessionId === null) throw new Error(`step ${step.op} needs a session first`);
    return state.sessionId;
  };
  switch (step.op) {
    case 'initialize':
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      return;
    case 'newSession':
      state.sessionId = (
        await agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })
      ).sessionId;
      return;
    case 'loadSession':
      await agent.request(acp.methods.agent.session.load, {
        sessionId: current(),
        cwd: workspace,
        mcpServers: [],
      });
      return;
    case 'setMode':
      await agent.request(acp.methods.agent.session.setMode, { sessionId: current(), modeId: step.mode });
      return;
    case 'setModeExpectError': {
      const outcome = await agent
        .request(acp.methods.agent.session.setMode, { sessionId: current(), modeId: step.mode })
        .then(
          () => 'resolved',
          () => 'rejected',
        );
      if (outcome !== 'rejected') throw new Error(`setMode ${step.mode} was expected to fail`);
      return;
    }
    case 'prompt':
      await agent.request(acp.methods.agent.session.prompt, {
        sessionId: current(),
        prompt: [{ type: 'text', text: step.text }],
      });
      return;
    case 'cancel':
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: current() });
      return;
    case 'restart':
      return;
  }
}

/**
 * Replaces what varies between runs: the temp workspace, the package's own folder (where the built-in policies a
 * rule names live), the session id, times, the version.
 */
function normaliser(workspace: string, sessionId: string | null): (value: unknown) => unknown {
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') {
      if (key === 'time' && !Number.isNaN(Date.parse(value))) return '<time>';
      let text = value.split(workspace).join('<workspace>');
      text = text.split(`${ROOT}/`).join('<package>/');
      if (sessionId) text = text.split(sessionId).join('<session>');
      return text;
    }
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        out[k] =
          k === 'agentInfo' && typeof v === 'object' && v !== null
            ? { ...v, version: '<version>' }
            : walk(v, k);
      }
      return out;
    }
    return value;
  };
  return (value) => walk(value);
}
