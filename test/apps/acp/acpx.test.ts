/**
 * The durable idle flip with a real third-party ACP client: acpx (a dev dependency) starts a fresh `dsh-mode acp`
 * for every command, so the mode chosen by one command must hold in the next command's process. `sessions new`,
 * then `set-mode plan` (session/set_mode) or `set mode plan` (session/set_config_option), then a prompt whose
 * write is denied although acpx approves every permission request. acpx keeps its state under `$HOME/.acpx`, so
 * each run gets its own home; nothing goes to the network (the agent runs the scripted model).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../engine/setup.js';
import { watchAgentMessages } from '../../reliability/acp-schema.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const ACPX = join(ROOT, 'node_modules/acpx/dist/cli.js');
const BIN = join(ROOT, 'bin/dsh-mode.mjs');
const run = promisify(execFile);

/** The methods a client sends, to tell acpx's side of its `--format json` trace from the agent's. */
const CLIENT_METHODS = new Set([
  'initialize',
  'session/new',
  'session/load',
  'session/prompt',
  'session/set_mode',
  'session/set_config_option',
  'session/cancel',
]);

const AGENT = 'npx --no-install dsh-mode acp';

/**
 * The acpx commands docs/apps.md shows (its `sh` block of `acpx` lines), each as the arguments after
 * `--agent "npx --no-install dsh-mode acp"`; a line that names the agent differently fails the test.
 */
function documentedCommands(): string[][] {
  const page = readFileSync(join(ROOT, 'docs/apps.md'), 'utf8');
  const block = /^```sh\n(acpx [\s\S]*?)^```$/m.exec(page)?.[1];
  if (!block) throw new Error('docs/apps.md has no sh block of acpx commands');
  return block
    .trim()
    .split('\n')
    .map((line) => {
      const words = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
      expect(words.slice(0, 3), line).toEqual(['acpx', '--agent', AGENT]);
      return words.slice(3);
    });
}

describe('acpx against dsh-mode acp', () => {
  const [create, setMode, prompt] = documentedCommands();

  it('runs the commands docs/apps.md shows', () => {
    expect(create).toEqual(['sessions', 'new']);
    expect(setMode).toEqual(['set-mode', 'plan']);
    expect(prompt?.[0]).toBe('prompt');
  });

  it.each([
    ['set-mode', setMode!],
    ['set', ['set', 'mode', 'plan']],
  ])(
    '`%s` plan, then a prompt in a fresh agent process: the write is denied',
    async (_name, flip) => {
      const root = tempDir('dsh-acpx-');
      const home = join(root, 'home');
      const ws = join(root, 'ws');
      mkdirSync(home);
      mkdirSync(ws);
      writeFileSync(join(ws, 'notes.md'), '# notes\n');
      const script = join(root, 'script.json');
      writeFileSync(
        script,
        JSON.stringify([
          { tool_calls: [{ name: 'write', arguments: { path: 'notes.md', content: 'changed\n' } }] },
          { text: 'The write was denied.' },
        ]),
      );
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
      delete env.DEEPSEEK_API_KEY;
      // `npx --no-install dsh-mode acp` is the bin it resolves to, here with the scripted model.
      const agent = `${process.execPath} ${BIN} acp --model-script ${script}`;
      // --ttl 1: the process that ran a command does not stay around for the next one.
      const acpx = (args: string[]) =>
        run(process.execPath, [ACPX, '--agent', agent, '--cwd', ws, '--ttl', '1', ...args], {
          env,
          cwd: ws,
          timeout: 60_000,
        });

      await acpx(create!);
      const [journal] = readdirSync(join(ws, '.dsh/sessions')).filter((f) => f.endsWith('.jsonl'));
      const sessionId = journal!.replace(/\.jsonl$/, '');
      const flipped = await acpx(['--format', 'json', ...flip]);
      expect(flipped.stdout).toContain('plan');
      // The intent is on disk, where the next agent process finds it.
      expect(existsSync(join(ws, '.dsh/sessions', `${sessionId}.mode-intent.json`))).toBe(true);

      const prompted = await acpx(['--format', 'json', '--approve-all', ...prompt!]);
      const trace = prompted.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map(
          (line) => JSON.parse(line) as { method?: string; id?: unknown; result?: Record<string, unknown> },
        );
      // The trace is the JSON-RPC traffic: check every message of the agent's against the ACP schema.
      const schema = watchAgentMessages();
      for (const message of trace) {
        if (message.method !== undefined && CLIENT_METHODS.has(message.method)) schema.sent(message);
        else schema.received(message);
      }
      expect(schema.checked).toBeGreaterThan(3);
      // A fresh agent: the prompt's connection starts with initialize and loads the session from disk.
      expect(trace.map((m) => m.method).slice(0, 3)).toEqual(['initialize', undefined, 'session/load']);
      expect(trace.some((m) => m.method === 'session/request_permission')).toBe(false);
      const loaded = trace.find((m) => m.result?.modes !== undefined)?.result;
      expect(loaded).toMatchObject({ modes: { currentModeId: 'plan' } });
      expect(JSON.stringify(trace)).toContain('tool \\"write\\" is not available in plan mode');

      expect(readFileSync(join(ws, 'notes.md'), 'utf8')).toBe('# notes\n');
      const events = readFileSync(join(ws, '.dsh/sessions', journal!), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
      expect(events.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
      const write = events.find((e) => e.type === 'tool/result' && e.data.name === 'write');
      expect(write?.data).toMatchObject({ isError: true });
      // Three commands, three agent processes, and no lock left behind by any of them.
      expect(readdirSync(join(ws, '.dsh/sessions')).filter((f) => f.endsWith('.lock'))).toEqual([]);
    },
    120_000,
  );
});
