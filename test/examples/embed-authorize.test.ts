/**
 * Runs examples/embed-authorize.mjs as a real child process (it imports `dsh-mode/compile` and `dsh-mode/engine`
 * by name, which resolve to this package's dist/) and checks each verdict against the built-in plan policy: the
 * deciding rules' positions are read from policies/plan.yaml, not written here. Also checks that the README's
 * "Use as a library" snippet is the example's own code, so the snippet is what this test runs, and that its table
 * of entries names what each entry exports.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const example = resolve(root, 'examples/embed-authorize.mjs');

/** `policies/plan.yaml:LINE:COL` of the first line of the plan policy that starts with `text` after indentation. */
function at(text: string): string {
  const lines = readFileSync(resolve(root, 'policies/plan.yaml'), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.trimStart().startsWith(text));
  expect(line).toBeGreaterThanOrEqual(0);
  const column = lines[line]!.length - lines[line]!.trimStart().length + 1;
  return `policies/plan.yaml:${line + 1}:${column}`;
}

describe('examples/embed-authorize.mjs', () => {
  it('gates a scripted agent loop with authorize(), asks the human, and leaves plan mode on approval', () => {
    const output = execFileSync(process.execPath, [example], { cwd: root, encoding: 'utf8' });
    const lines = output.trimEnd().split('\n');
    expect(lines).toEqual([
      `[plan] read: allow by \`read\` at ${at('read:')}: tool "read" is allowed in plan mode`,
      '  ran read',
      `[plan] write: deny by \`default\` at ${at('default:')}: tool "write" is not available in plan mode; ` +
        'keep planning and present your plan with exit_plan_mode when ready',
      `[plan] mcp__github__list_issues: allow by \`effects.readOnly\` at ${at('readOnly:')}: ` +
        'tool "mcp__github__list_issues" is allowed in plan mode',
      '  ran mcp__github__list_issues',
      `[plan] exit_plan_mode: ask by \`exit_plan_mode\` at ${at('exit_plan_mode:')}: ` +
        "Leaving plan mode needs the user's approval of the plan.",
      '  human, asked about exit_plan_mode: rejected',
      `[plan] exit_plan_mode: ask by \`exit_plan_mode\` at ${at('exit_plan_mode:')}: ` +
        "Leaving plan mode needs the user's approval of the plan.",
      '  human, asked about exit_plan_mode: approved',
      '  ran exit_plan_mode',
      '[default] write: allow by `(default mode)`: the default mode has no policy',
      '  ran write',
      '[default] exit_plan_mode: deny by `(default mode)`: tool "exit_plan_mode" is not available in default ' +
        'mode: there is no plan to approve outside a planning mode',
      'final mode: default',
    ]);
  });

  it('is what the README\'s "Use as a library" section shows', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const section = /^## Use as a library\n([\s\S]*?)^## /m.exec(readme)?.[1];
    expect(section).toBeDefined();
    const snippets = [...section!.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(snippets.length).toBeGreaterThan(0);
    const code = readFileSync(example, 'utf8').split('\n');
    // Each snippet is the example's lines, whole and in order (a `// …` line stands for lines left out).
    for (const snippet of snippets) {
      let from = 0;
      for (const line of snippet.trimEnd().split('\n')) {
        if (line.trim() === '// …') continue;
        const found = code.indexOf(line, from);
        expect(found, `README line not in the example: ${line}`).toBeGreaterThanOrEqual(0);
        from = found + 1;
      }
    }
  });
  it("names in the README's table of entries what each entry exports", async () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { default: string }>;
    };
    const rows = [...readme.matchAll(/^\| `(dsh-mode[^`]*)` \| ([^|]*) \|/gm)];
    expect(rows.map((r) => r[1])).toEqual([
      'dsh-mode',
      'dsh-mode/compile',
      'dsh-mode/engine',
      'dsh-mode/engine/plugin',
    ]);
    for (const [, entry, what] of rows) {
      const target = pkg.exports[entry!.replace(/^dsh-mode/, '.')];
      expect(typeof target).toBe('object');
      const built = (target as { default: string }).default;
      // The entry's source: an export list (dist/x/y.js comes from src/x/y.ts).
      const source = readFileSync(
        resolve(root, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
        'utf8',
      ).replace(/\/\*\*[\s\S]*?\*\//g, '');
      const named = [...what!.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]!);
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((n) => !new RegExp(`\\b${n}\\b`).test(source))).toEqual([]);
      if (entry === 'dsh-mode') {
        // The root's row is its whole run-time surface.
        const exported = Object.keys(await import(pathToFileURL(resolve(root, built)).href));
        expect(exported.filter((n) => !named.includes(n))).toEqual([]);
      }
    }
  });
});
