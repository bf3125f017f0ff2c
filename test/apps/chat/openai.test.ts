/**
 * `dsh-mode chat` on a deployment with the `openai` model entry, against a real loopback HTTP server speaking
 * the chat-completions SSE wire format (no network). Pins the plumbing from cordis.yml (`baseUrl`, `model`) and
 * `DEEPSEEK_API_KEY` to the request, and that the request the model gets in plan mode is plan-shaped.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../../bin/dsh-mode.mjs');
let server: Server | undefined;

afterEach(async () => {
  const current = server;
  server = undefined;
  if (!current) return;
  current.closeAllConnections();
  await new Promise((done) => current.close(done));
});

/** Serves one scripted SSE answer per request; records each request's headers and body. */
async function fakeDeepSeek(
  answers: unknown[][],
): Promise<{ url: string; seen: { auth: string; body: any }[] }> {
  const seen: { auth: string; body: any }[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ auth: String(req.headers.authorization), body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const delta of answers[seen.length - 1] ?? [{ content: 'out of answers' }]) {
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`, seen };
}

/** Runs the chat as a child process without blocking this process's event loop (the server lives here). */
function chat(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'chat', ...args], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdin.end();
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('dsh-mode chat with the openai model entry', () => {
  it('sends the plan-shaped request with the key from DEEPSEEK_API_KEY and shows the gate denying a write', async () => {
    const { url, seen } = await fakeDeepSeek([
      [
        { content: 'Trying a write. ' },
        {
          tool_calls: [
            {
              index: 0,
              id: 'x1',
              type: 'function',
              function: { name: 'write', arguments: '{"path":"a.txt",' },
            },
          ],
        },
        { tool_calls: [{ index: 0, function: { arguments: '"content":"hi"}' } }] },
      ],
      [{ content: 'Denied, as expected.' }],
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'dsh-chat-openai-'));
    writeFileSync(
      join(dir, 'cordis.yml'),
      `- name: host\n- name: mode\n- name: openai\n  config: { baseUrl: "${url}", model: fake-model, maxRetries: 0 }\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, DEEPSEEK_API_KEY: 'test-key' };
    // Named with --config: a found cordis.yml would need `dsh-mode trust` first.
    const run = await chat(['--config', 'cordis.yml', '--mode', 'plan', '--prompt', 'write a.txt'], dir, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('model: openai:fake-model');
    expect(run.stdout).toMatch(/✗ write a\.txt — DENIED: tool "write" is not available in plan mode/);
    expect(run.stdout).toContain('Denied, as expected.');
    expect(seen).toHaveLength(2);
    expect(seen[0]!.auth).toBe('Bearer test-key');
    expect(seen[0]!.body.model).toBe('fake-model');
    const tools = (seen[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(tools).toContain('exit_plan_mode');
    expect(tools).not.toContain('write');
    expect(seen[0]!.body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('plan mode'),
    });
  });
});
