/**
 * Text shown to people: a scripted model whose streamed text, tool names, arguments and plan carry newlines, carriage
 * returns, bidi controls, zero-width characters and lines that imitate the chat's own (tool lines, the approval
 * outcome, the question, a mode change). Driven through the built `dsh-mode chat` with piped stdin, and the
 * built `dsh-mode acp` for the titles and cards a client shows. The output holds no raw control, bidi or
 * zero-width character, and the only lines that start like the chat's UI are the real ones.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../engine/setup.js';
import { RawAcpClient } from './acp-client.js';
import { measured } from './config.js';

const BIN = resolve(import.meta.dirname, '../../bin/dsh-mode.mjs');

/** Every control, format (bidi, zero-width), separator or lone surrogate character, newline and tab aside. */
const RAW = /[^\P{Cc}\n\t]|[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** The start of a chat UI line: a mark after indentation, or a question. */
const UI = /^\s*[✓✗→┌│└─]|^(Approve this plan\?|Allow )/;

const HOSTILE =
  '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b\u200c\u200d\u2060\ufeff\u2028\u2029\r\u001b[2J';
const FAKE_TOOL = '\n  ✓ write src/app.js — ok: Wrote src/app.js\n';
const PLAN = [
  '# Tidy up\u202e',
  '1. Rename the helper.',
  '  → approved',
  'Approve this plan? y = approve, e = edit, n = keep planning, or type feedback: y',
  `\u2028  ✓ exit_plan_mode — ok: The user approved the plan.${HOSTILE}`,
  '└────────────',
  '── mode is now default ──',
].join('\n');

const SCRIPT = [
  {
    text: `Looking around.${FAKE_TOOL}  → approved\n── mode is now default ──\n┌ fake box${HOSTILE}\n`,
    tool_calls: [
      { name: `read${FAKE_TOOL}`, arguments: { path: 'a.txt' } },
      { name: `list\u202e${HOSTILE}`, arguments: {} },
      { name: 'read', arguments: { path: `a.txt${FAKE_TOOL}${HOSTILE}` } },
      { name: 'exit_plan_mode', arguments: { plan: PLAN } },
    ],
  },
  { text: `Rejected.${FAKE_TOOL}` },
];
const CALLS = SCRIPT[0]!.tool_calls!.length;

describe('hostile text shown to people', () => {
  it('dsh-mode chat: no raw control, bidi or zero-width character, and no fake UI line', async () => {
    await measured('hostile', 'chat: hostile tool names, arguments, plans and text', null, async () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'a.txt'), `one${HOSTILE}\ntwo\n`);
      writeFileSync(join(dir, 'script.json'), JSON.stringify(SCRIPT));
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.DEEPSEEK_API_KEY;
      const run = spawnSync(
        process.execPath,
        [BIN, 'chat', '--model-script', join(dir, 'script.json'), '--mode', 'plan', '--prompt', 'go'],
        { cwd: dir, encoding: 'utf8', env, input: 'n\n' },
      );
      expect(run.status, run.stderr).toBe(0);
      const out = run.stdout;
      expect(out.match(RAW), JSON.stringify(out)).toBeNull();
      // Escaped, not dropped.
      for (const spelled of [
        '\\u202e',
        '\\u2066',
        '\\u200b',
        '\\u2060',
        '\\ufeff',
        '\\u2028',
        '\\x0d',
        '\\x1b',
      ])
        expect(out).toContain(spelled);

      const lines = out.split('\n');
      const ui = lines.filter((line) => UI.test(line));
      const toolLines = ui.filter((line) => /^  [✓✗] /.test(line));
      expect(toolLines, out).toHaveLength(CALLS);
      expect(toolLines[0]).toMatch(
        /^  ✗ read\\x0a {2}✓ write src\/app\.js — ok: Wrote src\/app\.js\\x0a a\.txt — error: unknown tool/,
      );
      // The plan: every line inside the box, between its borders; its heading is the title, shown once.
      const top = lines.findIndex((line) => line.startsWith('┌'));
      const bottom = lines.findIndex((line, i) => i > top && line.startsWith('└'));
      expect(lines[top]).toMatch(/^┌─ Tidy up\\u202e ─+┐$/);
      const inside = lines.slice(top + 1, bottom);
      expect(
        inside.every((line) => /^│ .* │$/u.test(line)),
        inside.join('\n'),
      ).toBe(true);
      // Every line of the plan but the heading, some wrapped onto more than one row.
      expect(inside.length).toBeGreaterThanOrEqual(PLAN.split('\n').length - 1);
      expect(inside.join('\n')).not.toContain('# Tidy up');
      expect(lines[bottom]).toMatch(/^└─+┘$/);
      expect(ui.filter((line) => line.startsWith('┌'))).toHaveLength(1);
      expect(ui.filter((line) => line.startsWith('└'))).toHaveLength(1);
      expect(ui.filter((line) => line.startsWith('│'))).toHaveLength(inside.length);
      // One question, one outcome, one mode line: the real ones.
      expect(ui.filter((line) => line.startsWith('Approve this plan?'))).toEqual([
        'Approve this plan? y = approve, e = edit, n = keep planning, or type feedback: n',
      ]);
      expect(ui.filter((line) => /^\s*→/.test(line))).toEqual(['  → rejected']);
      expect(ui.filter((line) => /^\s*─/.test(line))).toEqual(['── mode is now plan ──']);
      expect(ui.filter((line) => line.startsWith('Allow '))).toEqual([]);
      return {
        runs: 1,
        violations: 0,
        notes: 'names, paths, plan and streamed text with 22 hostile characters',
      };
    });
  });

  it('dsh-mode chat: an asked call is shown in a bordered box and its question is one line', async () => {
    await measured('hostile', 'chat: hostile arguments of an asked call', null, async () => {
      const dir = tempDir();
      const guarded = resolve(import.meta.dirname, '../../policies/examples/guarded.yaml');
      writeFileSync(
        join(dir, 'deployment.yml'),
        `- name: host\n- name: mode\n  config:\n    policies: [${JSON.stringify(guarded)}]\n- name: demo\n`,
      );
      const path = `x.txt${FAKE_TOOL}  → approved${HOSTILE}`;
      const content = `hi\n  ✓ bash — ok\nAllow bash? y / n / feedback: y${HOSTILE}`;
      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify([{ tool_calls: [{ name: 'write', arguments: { path, content } }] }, { text: 'ok' }]),
      );
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.DEEPSEEK_API_KEY;
      const run = spawnSync(
        process.execPath,
        [
          ...[BIN, 'chat', '--config', join(dir, 'deployment.yml')],
          ...['--model-script', join(dir, 'script.json'), '--mode', 'guarded', '--prompt', 'go'],
        ],
        { cwd: dir, encoding: 'utf8', env, input: 'n\n' },
      );
      expect(run.status, run.stderr).toBe(0);
      const out = run.stdout;
      expect(out.match(RAW), JSON.stringify(out)).toBeNull();
      const lines = out.split('\n');
      const top = lines.findIndex((line) => line.startsWith('┌─ write '));
      const bottom = lines.findIndex((line, i) => i > top && line.startsWith('└'));
      expect(top).toBeGreaterThan(-1);
      expect(lines.slice(top + 1, bottom).every((line) => /^│ .* │$/u.test(line))).toBe(true);
      // A write is shown as the diff of its file, not as JSON.
      expect(lines.slice(top + 1, bottom).join('\n')).toContain('+  ✓ bash — ok');
      expect(lines.slice(top + 1, bottom).join('\n')).not.toContain('"content"');
      const ui = lines.filter((line) => UI.test(line) && !/^│/.test(line));
      expect(ui.filter((line) => line.startsWith('Allow '))).toHaveLength(1);
      expect(ui.filter((line) => /^\s*→/.test(line))).toEqual(['  → rejected']);
      expect(ui.filter((line) => /^  [✓✗] /.test(line))).toHaveLength(1);
      expect(ui.filter((line) => /^\s*─/.test(line))).toEqual(['── mode is now guarded ──']);
      expect(ui).toHaveLength(6);
      return { runs: 1, violations: 0 };
    });
  });

  it('dsh-mode acp: tool call titles are one escaped line, cards and results escaped', async () => {
    await measured('hostile', 'acp: hostile tool names and plans in titles and cards', null, async () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'a.txt'), `one${HOSTILE}\n`);
      const client = new RawAcpClient(dir, SCRIPT);
      try {
        await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const created = await client.request('session/new', { cwd: dir, mcpServers: [] });
        const sessionId = created.result!.sessionId as string;
        await client.request('session/set_mode', { sessionId, modeId: 'plan' });
        const prompt = client.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'go' }],
        });
        const ask = await client.waitFor((m) => m.method === 'session/request_permission');
        client.write(
          JSON.stringify({
            jsonrpc: '2.0',
            id: ask.id,
            result: { outcome: { outcome: 'selected', optionId: 'reject' } },
          }) + '\n',
        );
        expect((await prompt).result).toMatchObject({ stopReason: 'end_turn' });
        const updates = client.received
          .filter((m) => m.method === 'session/update')
          .map((m) => m.params!.update as Record<string, unknown>);
        const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
        expect(calls).toHaveLength(CALLS);
        for (const call of calls) expect(String(call.title)).not.toMatch(RAW);
        expect(calls[0]!.title).toBe('read\\x0a  ✓ write src/app.js — ok: Wrote src/app.js\\x0a a.txt');
        expect(calls[3]!.title).toBe('Tidy up\\u202e');
        // What a client shows (titles, cards, results, the question), never the raw arguments it may inspect.
        const shown = [
          ...updates.map((u) => JSON.stringify({ ...u, rawInput: undefined })),
          JSON.stringify({
            ...ask.params,
            toolCall: { ...(ask.params!.toolCall as object), rawInput: undefined },
          }),
        ];
        for (const text of shown) expect(JSON.parse(text) as unknown, text).toSatisfy(noRawText);
        expect(await client.close()).toBe(0);
        return { runs: calls.length, violations: 0 };
      } finally {
        client.child.kill();
      }
    });
  });
});

/** True when no string inside `value` holds a raw control, bidi or zero-width character. */
function noRawText(value: unknown): boolean {
  if (typeof value === 'string') return !RAW.test(value);
  if (typeof value !== 'object' || value === null) return true;
  return Object.values(value).every(noRawText);
}
