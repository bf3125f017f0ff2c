/** Claude Code 2.1.328 against the fake model: the PreToolUse hook's deny holds in bypassPermissions. */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode, makeScratch, runAgent, startFakeModel, toolResults } from './harness.js';
import { smoke, writeAndRead } from './smoke.js';
import { dshScenario } from './scenario.js';

describe('claude-code', () => {
  it('runs git status, and a PreToolUse deny keeps README.md and reaches the model (bypassPermissions)', async () => {
    await smoke(claudeCode, 'bypassPermissions', (i) => i.tool_name, 'Bash');
  });

  it('a denied write writes nothing, and a denied .env read keeps the secret from the model (bypassPermissions)', async () => {
    await writeAndRead(claudeCode, 'bypassPermissions', true);
  });

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
