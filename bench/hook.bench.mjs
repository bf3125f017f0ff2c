// The agents' hook (issue 28), where a person waits before every tool call of an agent:
//  - a cold `dsh-mode hook claude-code` for a Bash call in plan, a fresh `node bin/dsh-mode.mjs hook claude-code`
//    with the hook input on stdin, against `node -e 0` spawned in the same blocks, in a rotated order. The
//    workspace is a git repository whose compiled deployment is kept (as after `install`); each call journals its
//    decision. `ls -la src` needs no git; `git status` also runs git's repository checks (several `git` processes),
//    so it is shown beside it without a goal;
//  - `dsh-mode serve`: one decision over loopback HTTP (the http hook Claude Code would call) against a bare
//    loopback HTTP echo of the same body, interleaved.
// Runs the built bundle (`npm run build` first; `npm run bench` does).
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave, median, now, ratioResult, round } from './lib.mjs';

const BENCH = 'hook';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// What `dsh-mode install` registers.
const HOOK = join(ROOT, 'bin/dsh-mode-hook.cjs');

function workspace() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-hook-')));
  const ws = join(dir, 'project');
  mkdirSync(join(ws, '.dsh', 'agents'), { recursive: true });
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'README.md'), '# bench\n');
  writeFileSync(join(ws, '.dsh', 'agents', 'claude-code.json'), '{"mode":"plan"}\n');
  execFileSync('git', ['init', '-q'], { cwd: ws });
  const env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
  };
  return { dir, ws, env };
}

const input = (ws, command) =>
  JSON.stringify({
    session_id: 'bench',
    cwd: ws,
    hook_event_name: 'PreToolUse',
    permission_mode: 'bypassPermissions',
    tool_name: 'Bash',
    tool_input: { command },
  });

function spawnNs(args, options) {
  const start = now();
  const r = spawnSync(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return now() - start;
}

async function coldFigures({ quick }) {
  const { dir, ws, env } = workspace();
  try {
    const runs = [
      { args: ['-e', '0'], options: { cwd: ws, env } },
      { args: [HOOK, 'hook', 'claude-code'], options: { cwd: ws, env, input: input(ws, 'ls -la src') } },
      { args: [HOOK, 'hook', 'claude-code'], options: { cwd: ws, env, input: input(ws, 'git status') } },
    ];
    for (const r of runs) spawnNs(r.args, r.options);
    const ns = runs.map(() => []);
    for (let i = 0; i < (quick ? 1 : 21); i++) {
      for (let k = 0; k < runs.length; k++) {
        const j = (i + k) % runs.length;
        ns[j].push(spawnNs(runs[j].args, runs[j].options));
      }
    }
    const ms = (v) => round(v * 1e-6);
    const figure = (metric, values, goal) => {
      const ratios = values.map((v, i) => v / ns[0][i]);
      return {
        bench: BENCH,
        metric,
        value: ms(median(values)),
        unit: 'ms',
        baseline: ms(median(ns[0])),
        ratio: round(median(ratios)),
        spread: [round(Math.min(...ratios)), round(Math.max(...ratios))],
        note: 'baseline: node -e 0, in the same blocks',
        ...(goal ? { goal } : {}),
      };
    };
    return [
      figure('cold-hook-bash-vs-node', ns[1], { ratio: 1.5 }),
      figure('cold-hook-git-status-vs-node', ns[2]),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function serveFigure({ quick }) {
  const { dir, ws, env } = workspace();
  const { serve, ensureSecret } = await import('../dist/agents/serve.js');
  const { secret } = ensureSecret(env);
  const serving = await serve({ port: 0, secret, env, cwd: ws });
  const echo = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat(chunks)),
    );
  });
  await new Promise((r) => echo.listen(0, '127.0.0.1', r));
  const echoUrl = `http://127.0.0.1:${echo.address().port}/hook/claude-code`;
  const body = input(ws, 'ls -la src');
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const post = async (url, n) => {
    for (let i = 0; i < n; i++) await (await fetch(url, { method: 'POST', body, headers })).text();
  };
  try {
    const ns = await interleave(
      [
        { name: 'serve', run: (n) => post(serving.url, n) },
        { name: 'echo', run: (n) => post(echoUrl, n) },
      ],
      quick ? { blocks: 2, ops: 2, warmups: 1 } : { blocks: 15, blockMs: 200 },
    );
    return [
      {
        ...ratioResult(BENCH, 'serve-decision-vs-http-echo', ns.serve, ns.echo, {
          unit: 'µs',
          scale: 1e-3,
          goal: { ratio: 2 },
        }),
        note: 'baseline: a bare loopback HTTP echo of the same body, interleaved',
      },
    ];
  } finally {
    await serving.close();
    await new Promise((r) => echo.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function run(options) {
  return [...(await coldFigures(options)), ...(await serveFigure(options))];
}
