/**
 * The demo model in a project of your own: the `--prompt` command docs/apps.md shows (its first line, through
 * `sh` with `npx dsh-mode` as the built bin), run in a temp project with no `cordis.yml` and no key, so the embedded
 * default answers with the demo model. It explores that folder (lists it and the folder the prompt names, reads a
 * file there), proposes a plan that says what it found and that it is the demo, and changes nothing once approved.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../engine/setup.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** The line of docs/apps.md's `--prompt` example that needs no key. */
function documentedCommand(): string {
  const page = readFileSync(join(ROOT, 'docs/apps.md'), 'utf8');
  const line = page
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('echo y | npx dsh-mode chat') && l.includes('--prompt'));
  if (!line) throw new Error('docs/apps.md has no `echo y | npx dsh-mode chat … --prompt` line');
  return line;
}

describe('the demo model in your own project (docs/apps.md)', () => {
  it('explores the folder, plans from what it found, and changes nothing', () => {
    const dir = tempDir('dsh-demo-explore-');
    writeFileSync(join(dir, 'README.md'), '# tool\n\nA small tool.\n');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/main.js'), 'export function main() {}\n');
    const command = documentedCommand().replace(
      'npx dsh-mode',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin/dsh-mode.mjs'))}`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.DEEPSEEK_API_KEY;
    const run = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8', env });
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain("I'm the demo model, a fixed script and not a real model");
    expect(out).toContain('  ✓ list . — ok');
    expect(out).toContain('  ✓ list src — ok: main.js');
    expect(out).toContain('  ✓ read src/main.js — ok');
    expect(out).toContain('┌─ Demo plan: Plan a README for src/ ');
    expect(out).toContain('This folder holds `README.md`, `src/`.');
    expect(out).toContain('`src/main.js` has 1 line, starting `export function main() {}`.');
    expect(out).toContain('  ✓ exit_plan_mode — plan approved');
    expect(out).toContain('the demo changes nothing in your files');
    // Nothing of the greet() walk-through, and no write was even tried.
    expect(out).not.toMatch(/greet|shout|write|edit /);
    expect(readdirSync(dir).sort()).toEqual(['.dsh', 'README.md', 'src']);
    expect(readdirSync(join(dir, 'src'))).toEqual(['main.js']);
    expect(readFileSync(join(dir, 'src/main.js'), 'utf8')).toBe('export function main() {}\n');
  });
});
