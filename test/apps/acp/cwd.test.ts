/**
 * ACP `session/new` and `session/load` require `cwd` to be an existing folder's absolute path: a relative, empty,
 * missing, non-existent or non-folder `cwd` is JSON-RPC invalid params (-32602) saying what is wrong, nothing is
 * created for it, and a valid request right after still answers. Real: the built `dsh-mode acp` child process,
 * driven by the raw client of the hostile tests.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../engine/setup.js';
import { RawAcpClient } from '../../reliability/acp-client.js';

const init = { protocolVersion: 1, clientCapabilities: {} };

describe('ACP session cwd', () => {
  it('rejects a cwd that is not an existing folder’s absolute path, and still serves afterwards', async () => {
    const workspace = tempDir('dsh-acp-cwd-');
    const file = join(workspace, 'a-file.txt');
    writeFileSync(file, 'x');
    const client = new RawAcpClient(workspace, [{ text: 'ok' }]);
    try {
      await client.request('initialize', init);
      const cases: { cwd: unknown; message: RegExp }[] = [
        { cwd: 'relative/dir', message: /`cwd` must be an absolute path, got "relative\/dir"/ },
        { cwd: '.', message: /`cwd` must be an absolute path/ },
        { cwd: '', message: /`cwd` is missing or empty/ },
        // The SDK's own schema check answers this one before the handler: the error's data names `cwd`.
        { cwd: undefined, message: /"cwd":\{"_errors":\["Invalid input: expected string/ },
        { cwd: join(workspace, 'nope'), message: /does not exist/ },
        { cwd: file, message: /is not a directory/ },
      ];
      for (const method of ['session/new', 'session/load']) {
        for (const { cwd, message } of cases) {
          const params = {
            ...(cwd === undefined ? {} : { cwd }),
            mcpServers: [],
            ...(method === 'session/load' ? { sessionId: 'nosuch' } : {}),
          };
          const reply = await client.request(method, params);
          const label = `${method} ${JSON.stringify(cwd)}`;
          expect(reply.error?.code, label).toBe(-32602);
          const said = cwd === undefined ? JSON.stringify(reply.error?.data) : reply.error?.message;
          expect(said, label).toMatch(message);
        }
      }
      expect(existsSync(join(workspace, 'relative'))).toBe(false);
      expect(existsSync(join(workspace, 'nope'))).toBe(false);
      const created = await client.request('session/new', { cwd: workspace, mcpServers: [] });
      expect(created.error).toBeUndefined();
      const sessionId = created.result!.sessionId as string;
      const prompted = await client.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      });
      expect(prompted.result?.stopReason).toBe('end_turn');
      expect(client.noise).toEqual([]);
    } finally {
      expect(await client.close()).toBe(0);
    }
  });
});
