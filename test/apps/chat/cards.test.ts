/**
 * What the chat draws around untrusted text: the box (Unicode borders, sized to the terminal, wide letters
 * counted as two columns, every row escaped and framed), the plan card (its title once), and the approval card of
 * `write` and `edit` (a unified diff of the file, checked hunk for hunk against GNU `diff -u`, coloured only when
 * colour is on). Real cordis Context, host and mode plugin, real files; the terminal is a recording double of the
 * chat's `Terminal` seam.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerApprovals } from '../../../src/apps/chat/answerer.js';
import { unifiedDiff } from '../../../src/apps/chat/diff.js';
import { box, boxWidth, displayWidth, planBody, Printer, wrap } from '../../../src/apps/chat/render.js';
import { agentOf, setup, tempDir } from '../../engine/setup.js';
import { recordingTerminal } from './recording-terminal.js';

const SGR = /\u001b\[\d+m/g;

describe('box', () => {
  it('is a closed box of the given width, the title in its top border', () => {
    const drawn = box('Title', [{ text: 'one' }, { text: '' }, { text: 'two' }], 30).split('\n');
    expect(drawn).toEqual([
      '┌─ Title ────────────────────┐',
      '│ one                        │',
      '│                            │',
      '│ two                        │',
      '└────────────────────────────┘',
    ]);
    expect(drawn.every((row) => displayWidth(row) === 30)).toBe(true);
  });

  it('wraps long lines at spaces and counts wide letters and emoji as two columns', () => {
    const text = `${'漢字'.repeat(20)} and some words 🙂 that go past the right border of the box`;
    const drawn = box('寛', [{ text }], 40).split('\n');
    expect(drawn.length).toBeGreaterThan(4);
    for (const row of drawn) expect(displayWidth(row), row).toBe(40);
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('escapes every row, expands tabs, and cuts a long title', () => {
    const drawn = box(`${'t'.repeat(50)}\u001b[2J`, [{ text: 'a\tb\u202e\rc' }], 30);
    expect(drawn).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(drawn).toContain('│ a   b\\u202e\\x0dc');
    expect(drawn.split('\n')[0]).toMatch(/^┌─ t+… ─┐$/);
    expect(displayWidth(drawn.split('\n')[0]!)).toBe(30);
  });

  it('fits the terminal: 80 columns without one, at most 100, at least 24', () => {
    expect(boxWidth(undefined)).toBe(80);
    expect(boxWidth(60)).toBe(60);
    expect(boxWidth(200)).toBe(100);
    expect(boxWidth(10)).toBe(24);
  });
});

describe('planBody', () => {
  it('drops the heading the title came from, and only that', () => {
    expect(planBody('Do it', '# Do it\n\n1. a\n2. b\n')).toBe('1. a\n2. b');
    expect(planBody('Plan', 'No heading here.\n# Later')).toBe('No heading here.\n# Later');
    expect(planBody('Other', '# Do it\n1. a')).toBe('# Do it\n1. a');
  });
});

describe('unifiedDiff', () => {
  /** The hunks GNU diff prints for the two texts (headers with their timestamps left out). */
  function gnuHunks(before: string, after: string): string[] {
    const dir = tempDir('dsh-diff-');
    writeFileSync(join(dir, 'a'), before);
    writeFileSync(join(dir, 'b'), after);
    const run = spawnSync('diff', ['-u', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
    return run.stdout.split('\n').slice(2, -1);
  }
  const ours = (before: string, after: string): string[] =>
    unifiedDiff('f', before, after, false)
      .slice(2)
      .map((line) => line.text);

  /** Applies unified-diff hunks to `before`, checking every context and removed line and each header's counts. */
  function apply(before: string, hunks: string[]): string {
    const source = before === '' ? [] : before.replace(/\n$/, '').split('\n');
    const out: string[] = [];
    let next = 0;
    for (let i = 0; i < hunks.length;) {
      const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(hunks[i++]!);
      if (!header) throw new Error(`not a hunk header: ${hunks[i - 1]}`);
      const oldCount = Number(header[2] ?? 1);
      const newCount = Number(header[4] ?? 1);
      const start = oldCount === 0 ? Number(header[1]) : Number(header[1]) - 1;
      out.push(...source.slice(next, start));
      next = start;
      let olds = 0;
      let news = 0;
      while (i < hunks.length && !hunks[i]!.startsWith('@@')) {
        const line = hunks[i++]!;
        const [kind, text] = [line[0], line.slice(1)];
        if (kind !== '+') expect(source[next++], line).toBe(text);
        if (kind !== '-') out.push(text);
        if (kind !== '+') olds++;
        if (kind !== '-') news++;
      }
      expect([olds, news]).toEqual([oldCount, newCount]);
    }
    out.push(...source.slice(next));
    return out.length ? `${out.join('\n')}\n` : '';
  }
  const changes = (hunks: string[]) => hunks.filter((l) => /^[-+]/.test(l)).length;

  const hasDiff = spawnSync('diff', ['--version']).status === 0;
  it.skipIf(!hasDiff)(
    'matches GNU diff -u hunk for hunk, and random edits apply back as minimal as its',
    () => {
      const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
      const cases: [string, string][] = [
        [lines.join('\n') + '\n', lines.map((l, i) => (i === 19 ? 'changed' : l)).join('\n') + '\n'],
        // Two changes far apart (two hunks) and two close together (one).
        [
          lines.join('\n') + '\n',
          lines.map((l, i) => (i === 2 || i === 30 || i === 35 ? `${l}!` : l)).join('\n') + '\n',
        ],
        // Insertions and deletions at both ends.
        [lines.join('\n') + '\n', ['new first', ...lines.slice(1, -2), 'new last'].join('\n') + '\n'],
        ["export function greet(name) {\n  return 'Hello, ' + name;\n}\n", 'a\nb\n'],
      ];
      for (const [before, after] of cases) expect(ours(before, after)).toEqual(gnuHunks(before, after));
      // Random edits of a small file.
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let round = 0; round < 30; round++) {
        const before = Array.from({ length: 12 }, () => `x${Math.floor(random() * 5)}`);
        const after = before.flatMap((line) => {
          const r = random();
          return r < 0.15 ? [] : r < 0.3 ? [line, `y${Math.floor(random() * 5)}`] : [line];
        });
        const a = before.join('\n') + '\n';
        const b = after.join('\n') + (after.length ? '\n' : '');
        if (a === b) continue;
        // Where lines repeat, two minimal diffs may align them differently: both apply, with as many changes.
        expect(apply(a, ours(a, b))).toBe(b);
        expect(changes(ours(a, b))).toBe(changes(gnuHunks(a, b)));
      }
    },
  );

  it('names a new file /dev/null and says when nothing changes', () => {
    expect(unifiedDiff('n.txt', '', 'hi\n', true).map((l) => l.text)).toEqual([
      '--- /dev/null',
      '+++ b/n.txt',
      '@@ -0,0 +1 @@',
      '+hi',
    ]);
    expect(unifiedDiff('s.txt', 'same\n', 'same\n', false).at(-1)?.text).toBe('(no change)');
  });
});

/** What the answerer prints for one asked call in a workspace holding `files`. */
async function card(toolName: string, args: unknown, files: Record<string, string>, color = false) {
  const workspace = tempDir('dsh-card-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(workspace, path, '..'), { recursive: true });
    writeFileSync(join(workspace, path), text);
  }
  const { ctx } = await setup({ workspace });
  const { agent } = agentOf(ctx, []);
  const out: string[] = [];
  answerApprovals(
    ctx,
    agent,
    recordingTerminal(out),
    new Printer({ write: (t) => void out.push(t) }, { color }),
  );
  expect(await ctx.approval.request({ agent, toolName, callId: 'c1', arguments: args })).toEqual({
    outcome: 'rejected',
  });
  return out.join('');
}

describe('the approval card of write and edit', () => {
  const GREET = "export function greet(name) {\n  return 'Hello, ' + name;\n}\n";

  it('a write over an existing file shows the diff against it, not JSON', async () => {
    const shown = await card(
      'write',
      { path: 'src/g.js', content: GREET.replace('Hello', 'Hi') },
      { 'src/g.js': GREET },
    );
    expect(shown).toContain('│ --- a/src/g.js');
    expect(shown).toContain("│ -  return 'Hello, ' + name;");
    expect(shown).toContain("│ +  return 'Hi, ' + name;");
    expect(shown).toContain('│  export function greet(name) {');
    expect(shown).not.toContain('"content"');
    expect(shown).not.toMatch(SGR);
  });

  it('a write of a new file shows every line added', async () => {
    const shown = await card('write', { path: 'new.txt', content: 'one\ntwo\n' }, {});
    expect(shown).toContain('│ (a new file)');
    expect(shown).toContain('│ --- /dev/null');
    expect(shown).toContain('│ +one');
    expect(shown).toContain('│ +two');
  });

  it('an edit shows its change in the file with context', async () => {
    const file = `// top\n${GREET}// bottom\n`;
    const shown = await card(
      'edit',
      { path: 'g.js', old_string: "'Hello, '", new_string: "'Hey, '" },
      { 'g.js': file },
    );
    expect(shown).toContain('│ @@ -1,5 +1,5 @@');
    expect(shown).toContain("│ -  return 'Hello, ' + name;");
    expect(shown).toContain("│ +  return 'Hey, ' + name;");
    expect(shown).toContain('│  // bottom');
  });

  it('an edit whose old_string is not in the file says it will fail, and shows both strings', async () => {
    const shown = await card(
      'edit',
      { path: 'g.js', old_string: 'nope', new_string: 'yes' },
      { 'g.js': GREET },
    );
    expect(shown).toContain('old_string is not found exactly once in g.js: the edit will fail');
    expect(shown).toContain('│ -nope');
    expect(shown).toContain('│ +yes');
  });

  it('colours removed lines red and added lines green when colour is on, and nothing else raw', async () => {
    const shown = await card('write', { path: 'g.js', content: 'new\n' }, { 'g.js': 'old\u001b[2J\n' }, true);
    expect(shown).toContain('\u001b[31m-old\\x1b[2J');
    expect(shown).toContain('\u001b[32m+new');
    expect(shown.replace(SGR, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it('a file outside the workspace is not read for the card', async () => {
    const shown = await card('write', { path: '../../../etc/passwd', content: 'x\n' }, {});
    expect(shown).toContain('(the current file cannot be read:');
    expect(shown).not.toContain('root:');
  });

  it('any other tool, or arguments of another shape, show as JSON', async () => {
    expect(await card('bash', { command: 'ls' }, {})).toContain('"command": "ls"');
    expect(await card('write', { path: 1, content: 'x' }, {})).toContain('"path": 1');
  });
});
