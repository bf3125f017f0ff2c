/** Claude Code 2.1.328 with dsh-mode's PreToolUse hook (command and http), in bypassPermissions and in its own plan. */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSecret, serve } from '../../src/agents/serve.js';
import {
  claudeCode,
  dshEnv,
  dshMode,
  makeScratch,
  runAgent,
  startFakeModel,
  toolResults,
} from './harness.js';
import { dshScenario } from './scenario.js';

describe('claude-code', () => {
  // The shape `dsh-mode serve` would take: an `http` hook on loopback with a secret from the environment.
  describe('an http hook with onFailure "block"', () => {
    async function withHttpHook(answer: 'deny' | 'down') {
      const seen: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }> = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          seen.push({ headers: req.headers, body: JSON.parse(body) as Record<string, unknown> });
          const hookSpecificOutput = {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: 'http hook: `rm README.md` is denied',
          };
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ hookSpecificOutput }));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      if (answer === 'down') await new Promise((r) => server.close(r));
      const s = makeScratch();
      const fake = await startFakeModel({ steps: [claudeCode.shell('git status; rm README.md')] });
      try {
        await claudeCode.configure(s, fake, []);
        const hook = {
          type: 'http',
          url: `http://127.0.0.1:${port}/hook`,
          timeout: 5,
          headers: { Authorization: 'Bearer $DSH_TEST_SECRET' },
          allowedEnvVars: ['DSH_TEST_SECRET'],
          onFailure: 'block',
        };
        const settings = { hooks: { PreToolUse: [{ matcher: '*', hooks: [hook] }] } };
        writeFileSync(join(s.project, '.claude', 'settings.json'), JSON.stringify(settings));
        const cmd = claudeCode.command(s, fake, 'bypassPermissions', 'go');
        const drive = {
          ...claudeCode,
          command: () => ({ ...cmd, env: { ...cmd.env, DSH_TEST_SECRET: 's3cret' } }),
        };
        const run = await runAgent(drive, s, fake, { mode: 'bypassPermissions', timeoutMs: 150_000 });
        return {
          run,
          seen,
          kept: existsSync(join(s.project, 'README.md')),
          results: toolResults(fake.mainRequests().at(-1)!),
          egress: fake.egress,
        };
      } finally {
        server.close();
        await fake.close();
        s.cleanup();
      }
    }

    it('gets the PreToolUse input with the secret header, and its deny blocks and reaches the model', async () => {
      const r = await withHttpHook('deny');
      expect(r.run.timedOut).toBe(false);
      expect(r.kept).toBe(true);
      expect(r.seen).toHaveLength(1);
      expect(r.seen[0]!.headers.authorization).toBe('Bearer s3cret');
      expect(r.seen[0]!.body.tool_name).toBe('Bash');
      expect(r.results[0]!.text).toContain('http hook: `rm README.md` is denied');
      expect(r.egress).toEqual([]);
    });

    it('blocks when nothing listens', async () => {
      const r = await withHttpHook('down');
      expect(r.run.timedOut).toBe(false);
      expect(r.kept).toBe(true);
      expect(r.results[0]!.text).toContain('blocking because onFailure is "block"');
    });
  });
});

describe('claude-code with dsh-mode install', () => {
  it('plan: git status runs, rm and the write are denied, .env stays out, dsh-mode mode default lets the write run, log shows it (bypassPermissions)', async () => {
    await dshScenario(claudeCode, 'bypassPermissions', true);
  });
});

describe('claude-code with dsh-mode serve (install --http)', () => {
  it('decides over the http hook with the secret: git status runs, rm is denied and README.md stays', async () => {
    const s = makeScratch();
    const fake = await startFakeModel({
      steps: [claudeCode.shell('git status'), claudeCode.shell('git status; rm README.md')],
    });
    const env = dshEnv(s);
    const { secret } = ensureSecret(env);
    const serving = await serve({ port: 0, secret, env, cwd: s.project });
    try {
      await claudeCode.configure(s, fake, null);
      const port = Number(new URL(serving.url).port);
      const installed = dshMode(s, ['install', 'claude-code', '--mode', 'plan', '--http', String(port)]);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stderr).toContain('DSH_MODE_SECRET');
      const cmd = claudeCode.command(s, fake, 'bypassPermissions', 'go');
      const drive = {
        ...claudeCode,
        command: () => ({ ...cmd, env: { ...cmd.env, DSH_MODE_SECRET: secret } }),
      };
      const run = await runAgent(drive, s, fake, { mode: 'bypassPermissions', timeoutMs: 150_000 });
      expect(run.timedOut).toBe(false);
      expect(existsSync(join(s.project, 'README.md'))).toBe(true);
      const results = toolResults(fake.mainRequests().at(-1)!);
      expect(results[0]!.text).toContain('On branch');
      expect(results[1]!.text).toContain('rm README.md');
      expect(dshMode(s, ['log', '--agent', 'claude-code']).stdout).toMatch(/deny +Bash as bash/);
      // Without the secret the server answers 401, and onFailure "block" blocks the call.
      fake.setSteps([claudeCode.shell('rm README.md')]);
      const unauthorized = await runAgent(claudeCode, s, fake, {
        mode: 'bypassPermissions',
        timeoutMs: 150_000,
      });
      expect(unauthorized.timedOut).toBe(false);
      expect(existsSync(join(s.project, 'README.md'))).toBe(true);
      expect(toolResults(fake.mainRequests().at(-1)!)[0]!.text).toContain(
        'blocking because onFailure is "block"',
      );
      expect(fake.egress).toEqual([]);
    } finally {
      await serving.close();
      await fake.close();
      s.cleanup();
    }
  });
});

describe("claude-code's own plan mode with dsh-mode install", () => {
  it("--permission-mode plan is dsh-mode's plan with no starting mode: git status runs, rm is denied pointing at ExitPlanMode", async () => {
    const s = makeScratch();
    const fake = await startFakeModel({
      steps: [claudeCode.shell('git status'), claudeCode.shell('git status; rm README.md')],
    });
    try {
      await claudeCode.configure(s, fake, null);
      const installed = dshMode(s, ['install', 'claude-code']);
      expect(installed.code, installed.stderr).toBe(0);
      const run = await runAgent(claudeCode, s, fake, { mode: 'plan', timeoutMs: 150_000 });
      expect(run.timedOut).toBe(false);
      expect(existsSync(join(s.project, 'README.md'))).toBe(true);
      const results = toolResults(fake.mainRequests().at(-1)!);
      expect(results[0]!.text).toContain('On branch');
      expect(results[1]!.text).toContain('rm README.md');
      expect(results[1]!.text).toContain('ExitPlanMode');
      const log = dshMode(s, ['log', '--agent', 'claude-code']).stdout;
      expect(log).toContain('start  default');
      expect(log).toMatch(/deny +Bash as bash .* in plan mode \(permission_mode plan\)/);
      expect(fake.egress).toEqual([]);
    } finally {
      await fake.close();
      s.cleanup();
    }
  });
});
