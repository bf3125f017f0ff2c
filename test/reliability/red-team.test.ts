/**
 * Red-team findings against the issue 11 fixes: each test reproduces one hole through the real binary (or the real
 * built-in tools) on real files. A hole that is fixed has a plain test that failed before its fix; a hole whose
 * fix is not small stays as `it.fails(...)`, named in its comment, so the suite stays green and the hole stays
 * visible (the test starts failing, and must become a plain `it`, once the hole is closed).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundedNdJsonStream } from '../../src/apps/acp/nd-json.js';
import { tempDir } from '../engine/setup.js';
import { dshMode, makeTree, ROOT } from '../cli/run.js';
import { measured, rng, seedOf } from './config.js';

const BIN = resolve(import.meta.dirname, '../../bin/dsh-mode.mjs');
const PLAN = readFileSync(join(ROOT, 'policies/plan.yaml'), 'utf8');

/** A copy of the built-in plan that replaces it, with extra tool rules appended under `tools:`. */
function overridePlan(extraTools: string): string {
  return PLAN.replace('mode: plan\n', 'mode: plan\noverride: true\n').replace(
    '  exit_plan_mode:\n',
    `${extraTools}  exit_plan_mode:\n`,
  );
}

function chat(dir: string, args: string[], input = ''): { code: number | null; out: string; err: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.DEEPSEEK_API_KEY;
  const run = spawnSync(process.execPath, [BIN, 'chat', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env,
    input,
    timeout: 60_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('red team: text shown to people', () => {
  it('a streamed line indented with Unicode spaces cannot imitate a tool line or an approval outcome', async () => {
    await measured('hostile', 'red team: fake UI lines behind Unicode spaces', null, async () => {
      const dir = tempDir('dsh-red-');
      // En spaces, an ideographic space, a no-break space and a figure space look like the chat's indentation.
      const fakes = [
        '\u2002\u2002✓ write src/app.js — ok: Wrote src/app.js',
        '\u3000→ approved',
        '\u00a0\u00a0✗ bash rm -rf / — denied',
        '\u2007── mode is now default ──',
        '\u3164\u2800✓ edit README.md — ok',
      ];
      writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: `Look.\n${fakes.join('\n')}\n` }]));
      const run = chat(dir, ['--model-script', join(dir, 'script.json'), '--mode', 'plan', '--prompt', 'go']);
      expect(run.code, run.err).toBe(0);
      // A UI line is a mark after anything that looks blank: only the chat's real ones.
      const ui = run.out
        .split('\n')
        .filter((line) => /^[\s\u115f\u1160\u2800\u3164\uffa0]*[✓✗→┌│└─]/u.test(line));
      expect(ui, run.out).toEqual(['── mode is now plan ──']);
      return {
        runs: fakes.length,
        violations: 0,
        notes: 'marks behind U+2002, U+3000, U+00A0, U+2007, U+3164, U+2800',
      };
    });
  });
});

describe('red team: text shown to people, as a terminal wraps it', () => {
  /** The rows an 80-column terminal shows (every character here is one column wide). */
  const rows = (text: string, width = 80): string[] =>
    text.split('\n').flatMap((line) => {
      const chars = [...line];
      const out: string[] = [];
      for (let at = 0; at < chars.length || at === 0; at += width)
        out.push(chars.slice(at, at + width).join(''));
      return out;
    });

  // Was a hole (closed in chat/render.ts, `Printer`): marks were escaped only at the start of a logical line, but
  // a terminal soft-wraps long lines. Streamed text padded to the terminal's width (80 here) put `  ✓ write …` at
  // the start of a screen row, which read as the chat's own tool line. The printer now counts the screen column
  // of what it prints and escapes a mark that would begin a row.
  it('streamed text padded to the terminal width cannot put a fake tool line at the start of a row', async () => {
    await measured('hostile', 'red team: fake UI rows by soft wrap', null, async () => {
      const dir = tempDir('dsh-red-');
      const pad = 'Reading the files now, please wait while I look at the project structure.'.padEnd(80, '.');
      const fake = '  ✓ write src/app.js — ok: Wrote src/app.js';
      writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: `${pad}${fake}\n` }]));
      const run = chat(dir, ['--model-script', join(dir, 'script.json'), '--mode', 'plan', '--prompt', 'go']);
      expect(run.code, run.err).toBe(0);
      const ui = rows(run.out).filter((row) => /^\s*[✓✗→┌│└─]/.test(row));
      expect(ui, run.out).toEqual(['── mode is now plan ──']);
      return { runs: 1, violations: 0 };
    });
  });
});

describe('red team: diff --fail-on-escalation and hint probes', () => {
  // A glob that a catalog or built-in tool matched got no sample row of its own (that tool "stood for" it), so a
  // glob allowing every other name it matches was never compared. Here `todo_*: allow` in an override of plan:
  // `todo_write` is allowed before and after, while `todo_delete_all` goes from deny to allow.
  it('a glob widening shadowed by a built-in tool it matches is an escalation', async () => {
    await measured('diff-probes', 'red team: glob widening behind a built-in tool', null, async () => {
      const dir = makeTree({
        'old/plan.yaml': PLAN,
        'new/plan.yaml': overridePlan('  "todo_*": allow\n'),
      });
      // The widening is real: the engine decides differently.
      expect(dshMode(['check', 'plan', 'todo_delete_all', 'old', '--no-builtin'], dir).stdout).toMatch(
        /: deny$/m,
      );
      expect(dshMode(['check', 'plan', 'todo_delete_all', 'new', '--no-builtin'], dir).stdout).toMatch(
        /: allow$/m,
      );
      const diff = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(diff.code, diff.stdout + diff.stderr).toBe(1);
      return { runs: 1, violations: 0 };
    });
  });

  // A glob's one sample name filled every `*` with `x`, so a more specific glob that also matched that sample
  // decided it, and the wider glob was never seen: `mcp__*: allow` beside `mcp__x*: deny` was asked only about
  // `mcp__x` (deny), while every other MCP tool (`mcp__db__upsert`) goes from deny to allow.
  it('a glob widening whose sample a more specific glob shadows is an escalation', async () => {
    await measured('diff-probes', 'red team: glob widening behind a shadowed sample', null, async () => {
      const dir = makeTree({
        'old/plan.yaml': PLAN,
        'new/plan.yaml': overridePlan('  "mcp__*": allow\n  "mcp__x*": deny\n'),
      });
      expect(dshMode(['check', 'plan', 'mcp__db__upsert', 'old', '--no-builtin'], dir).stdout).toMatch(
        /: deny$/m,
      );
      expect(dshMode(['check', 'plan', 'mcp__db__upsert', 'new', '--no-builtin'], dir).stdout).toMatch(
        /: allow$/m,
      );
      const diff = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(diff.code, diff.stdout + diff.stderr).toBe(1);
      return { runs: 1, violations: 0 };
    });
  });
});

describe('red team: the probe for tools nobody named', () => {
  // HOLE (not fixed, grid.ts): `(other tool)` is decided for one fixed name, `\u2063dsh-mode-other-tool\u2063`.
  // A glob that matched the old fixed probe name and nothing real (`"\u2063*": deny`) decided the probe, so
  // `default: allow` went unseen: every tool nobody named (`mcp__db__drop`) went from deny to allow with 0
  // escalations. The probe is now a name no selector of either side matches (src/compile/report/glob-witness.ts).
  it('a default widened behind a selector that matches the probe name is an escalation', async () => {
    await measured('diff-probes', 'red team: default widening behind the probe name', null, async () => {
      const wide = overridePlan('  write: deny\n  edit: deny\n  "\u2063*": deny\n').replace(
        'default: deny',
        'default: allow',
      );
      const dir = makeTree({ 'old/plan.yaml': PLAN, 'new/plan.yaml': wide });
      expect(dshMode(['check', 'plan', 'mcp__db__drop', 'old', '--no-builtin'], dir).stdout).toMatch(
        /: deny$/m,
      );
      expect(dshMode(['check', 'plan', 'mcp__db__drop', 'new', '--no-builtin'], dir).stdout).toMatch(
        /: allow$/m,
      );
      const diff = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(diff.code, diff.stdout + diff.stderr).toBe(1);
      return { runs: 1, violations: 0 };
    });
  });
});

describe('red team: start notices', () => {
  // The start notices use diff's rows (collectToolRows), so a plan widened by a glob that a built-in tool matched
  // was not listed among the widenings: only the override itself was named. A trusted cordis.yml whose policies
  // folder gains such a file on a `git pull` stays trusted (only cordis.yml is hashed), so the notice is all the
  // user gets.
  it('a widening by a glob a built-in tool stands for is named at start', async () => {
    await measured('hostile', 'red team: start notice for a glob widening', null, async () => {
      const dir = tempDir('dsh-red-');
      mkdirSync(join(dir, 'policies'));
      writeFileSync(join(dir, 'policies/zz.yaml'), overridePlan('  "todo_*": allow\n'));
      writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: 'hi' }]));
      writeFileSync(
        join(dir, 'cordis.yml'),
        '- name: host\n- name: mode\n  config:\n    policies: [./policies]\n- name: scripted\n  config: { script: script.json }\n',
      );
      const env = { DSH_MODE_CONFIG_DIR: join(dir, 'trust') };
      const run = spawnSync(process.execPath, [BIN, 'chat', '--config', 'cordis.yml', '--prompt', 'hi'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', ...env, DEEPSEEK_API_KEY: '' },
        input: '',
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toContain('plan mode is replaced by an `override: true` document');
      expect(run.stderr).toMatch(
        /plan mode allows more than the built-in plan:\n(  .*\n)*  todo_\*: deny → allow/,
      );
      return { runs: 1, violations: 0 };
    });
  });
});

describe('red team: the ACP wire at its limits (held)', () => {
  it('lines at, one under and one over the limit, CRLF and three-byte characters, in random chunks', async () => {
    const name = 'red team: wire lines at the exact limit in random chunks';
    await measured('hostile', name, seedOf(name), async () => {
      const limit = 64;
      const random = rng(seedOf(name));
      /** A request line of exactly `size` bytes (newline excluded), padded with three-byte characters. */
      const line = (id: number, size: number): string | undefined => {
        const of = (s: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'x', params: { s } });
        let pad = '';
        while (Buffer.byteLength(of(pad)) + 3 <= size) pad += '€';
        while (Buffer.byteLength(of(pad)) < size) pad += 'a';
        return Buffer.byteLength(of(pad)) === size ? of(pad) : undefined;
      };
      const trials = 200;
      for (let trial = 0; trial < trials; trial++) {
        const passes: number[] = [];
        const refused: number[] = [];
        let text = '';
        for (let id = 1; id <= 6; id++) {
          const size = [limit, limit + 1, limit - 1, 50, limit + 2, limit * 3][Math.floor(random() * 6)]!;
          const crlf = random() < 0.3;
          const body = line(id, crlf ? size - 1 : size);
          if (body === undefined) continue;
          text += body + (crlf ? '\r\n' : '\n');
          // The carriage return counts towards the line's bytes.
          (size <= limit ? passes : refused).push(id);
        }
        const bytes = Buffer.from(text);
        const answers: { id: unknown; error?: unknown }[] = [];
        const input = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length;) {
              const n = 1 + Math.floor(random() * 17);
              controller.enqueue(new Uint8Array(bytes.subarray(at, at + n)));
              at += n;
            }
            controller.close();
          },
        });
        const output = new WritableStream<Uint8Array>({
          write(chunk) {
            for (const l of Buffer.from(chunk).toString('utf8').split('\n').filter(Boolean))
              answers.push(JSON.parse(l) as { id: unknown; error?: unknown });
          },
        });
        const { stream } = boundedNdJsonStream(output, input, () => {}, {
          maxLineBytes: limit,
          maxMessageBytes: 1 << 20,
        });
        const reader = stream.readable.getReader();
        const read: { id?: unknown; params?: { s: string } }[] = [];
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          read.push(value as { id?: unknown; params?: { s: string } });
        }
        await new Promise((resolve) => setTimeout(resolve, 0));
        expect(read.map((m) => m.id)).toEqual(passes);
        expect(read.every((m) => !m.params!.s.includes('\ufffd'))).toBe(true);
        expect(answers.filter((a) => a.error).map((a) => a.id)).toEqual(refused);
      }
      return { runs: trials, violations: 0, notes: 'limit 64 bytes; sizes limit-1, limit, limit+1, 3x' };
    });
  });
});

describe('red team: nothing the user owns is damaged', () => {
  it('edit refuses a file that is not UTF-8 and leaves every byte of it as it was', async () => {
    await measured('hostile', 'red team: edit of a Latin-1 file', null, async () => {
      const dir = tempDir('dsh-red-');
      // A Latin-1 file: `é` is the single byte 0xE9, which a lossy decode turns into U+FFFD on the way back.
      const latin1 = Buffer.from([...Buffer.from('caf'), 0xe9, ...Buffer.from(' au lait\nline two\n')]);
      writeFileSync(join(dir, 'menu.txt'), latin1);
      const bom = Buffer.from('\ufeffheading\nline two\n');
      writeFileSync(join(dir, 'bom.txt'), bom);
      const edit = (path: string) => ({
        name: 'edit',
        arguments: { path, old_string: 'line two', new_string: 'line 2' },
      });
      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify([
          { text: 'Editing.', tool_calls: [edit('menu.txt'), edit('bom.txt')] },
          { text: 'Done.' },
        ]),
      );
      const run = chat(dir, ['--model-script', join(dir, 'script.json'), '--prompt', 'go']);
      expect(run.code, run.err).toBe(0);
      expect(readFileSync(join(dir, 'menu.txt')).equals(latin1)).toBe(true);
      expect(run.out).toContain('is not UTF-8 text');
      // A UTF-8 file with a byte order mark is still edited, and keeps its mark.
      expect(readFileSync(join(dir, 'bom.txt')).equals(Buffer.from('\ufeffheading\nline 2\n'))).toBe(true);
      return { runs: 2, violations: 0 };
    });
  });
});

describe('red team: the probe for tools nobody named, against chains of deny globs', () => {
  it('finds a name no glob matches behind `[!m]*`, `m[!c]*`, `mc[!p]*`, … and none when `*` covers all', async () => {
    const { unmatchedName } = await import('../../src/compile/report/glob-witness.js');
    const { parseSelector } = await import('../../src/compile/language/glob.js');
    const globsOf = (selectors: string[]) => selectors.flatMap((s) => parseSelector(s).alternatives);
    const chain = ['[!m]*', 'm[!c]*', 'mc[!p]*', 'mcp[!_]*', 'mcp_[!_]*', '\u2063*', 'x*', 'q*'];
    const name = unmatchedName(globsOf(chain), new Set(['mcp', 'mcp_', 'mcp__', 'm', 'mc']));
    expect(name).toBeDefined();
    for (const alt of globsOf(chain)) expect(alt.match(name!), `${alt.pattern} matches ${name}`).toBe(false);
    expect(unmatchedName(globsOf(['*']), new Set())).toBeUndefined();
    expect(unmatchedName(globsOf(['?*', '[!a]']), new Set())).toBeUndefined();
  });
});
