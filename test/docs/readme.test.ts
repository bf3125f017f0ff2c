/**
 * The README's `check` examples are what the command prints: each `$ npx dsh-mode check …` line of a `console`
 * block runs in process in an empty folder (only the built-in plan applies), and its output must equal the lines
 * under it. The hint sentence quoted in the prose is checked the same way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-in-process.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'dsh-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `check` commands of the README's console blocks, each with the output printed under it. */
function checkExamples(): { argv: string[]; output: string }[] {
  const examples: { argv: string[]; output: string }[] = [];
  for (const block of README.matchAll(/^```console\n([\s\S]*?)^```$/gm)) {
    let current: { argv: string[]; output: string } | undefined;
    for (const line of block[1]!.split('\n')) {
      if (line.startsWith('$ ')) {
        const words = line.slice(2).split(/\s+/);
        current =
          words[0] === 'npx' && words[1] === 'dsh-mode' && words[2] === 'check'
            ? { argv: words.slice(2), output: '' }
            : undefined;
        if (current) examples.push(current);
      } else if (current && line !== '') current.output += `${line}\n`;
    }
  }
  return examples;
}

describe('README.md', () => {
  const examples = checkExamples();

  it('shows at least one check example', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  for (const { argv, output } of examples) {
    it(`$ npx dsh-mode ${argv.join(' ')}`, async () => {
      const run = await runCli(argv, { cwd: dir });
      expect(run.stdout).toBe(output);
    });
  }

  it('quotes the did-you-mean hint of `check plan wrte` as printed', async () => {
    const quoted = /adds ``(hint .*?)``/.exec(README)?.[1];
    expect(quoted).toBeDefined();
    const run = await runCli(['check', 'plan', 'wrte'], { cwd: dir });
    expect(run.stdout.split('\n')).toContain(`  ${quoted}`);
  });
});
