/**
 * docs/guide.md runs as written: in an empty project folder with this package installed from a tarball, as the
 * guide's first step does (`npm pack` of this checkout's built `dist/`, then `npm install --save-dev` of the .tgz;
 * test/docs/install.test.ts runs that step itself, build included), every file block (a line `` `path`: ``
 * followed by a fenced block) is written and every `console` block is run top to bottom, each `$ command` through
 * `sh` with stdout and stderr together (`npx dsh-mode` as the bin it resolves to), and its output compared with
 * the lines that follow it. The built-in plan's path is machine-specific, so `<package>/` in the output reads as
 * `…/node_modules/dsh-mode/`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const GUIDE = join(root, 'docs/guide.md');

type Step =
  { kind: 'file'; path: string; content: string } | { kind: 'run'; command: string; output: string };

/** The file blocks and console commands of a Markdown text, in order. */
function guideSteps(markdown: string): Step[] {
  const lines = markdown.split('\n');
  const steps: Step[] = [];
  let label: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const file = /^`([^`]+)`:$/.exec(line.trim());
    if (file) {
      label = file[1];
      continue;
    }
    const open = /^(\s*)(`{3,})(\w*)\s*$/.exec(line);
    if (!open) {
      if (line.trim() !== '') label = undefined;
      continue;
    }
    const [, indent = '', ticks = '', lang = ''] = open;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== ticks; i++) body.push(lines[i]!.slice(indent.length));
    if (label !== undefined && lang !== 'console' && lang !== 'sh') {
      steps.push({ kind: 'file', path: label, content: `${body.join('\n')}\n` });
    } else if (lang === 'console') {
      for (const b of body) {
        if (b.startsWith('$ ')) steps.push({ kind: 'run', command: b.slice(2), output: '' });
        else {
          const last = steps.at(-1);
          if (last?.kind !== 'run') throw new Error(`guide.md: output before any command: ${b}`);
          last.output += `${b}\n`;
        }
      }
    }
    label = undefined;
  }
  return steps;
}

function normalize(text: string, pkg: string): string {
  return text
    .split(`${pkg}/`)
    .join('…/node_modules/dsh-mode/')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

describe('docs/guide.md', () => {
  const steps = guideSteps(readFileSync(GUIDE, 'utf8'));
  let project: string;
  let pkg: string;

  beforeAll(() => {
    project = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-guide-')));
    pkg = join(project, 'node_modules/dsh-mode');
    writeFileSync(join(project, 'package.json'), '{ "name": "my-project", "private": true }\n');
    // dist/ is already built (test/global-setup.ts), so the pack skips its `prepack` build.
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    const packed = execFileSync(
      'npm',
      ['pack', '--ignore-scripts', '--silent', '--pack-destination', project],
      {
        cwd: root,
        encoding: 'utf8',
        env,
      },
    ).trim();
    execFileSync(
      'npm',
      ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', '--silent', `./${packed}`],
      { cwd: project, env, stdio: 'pipe' },
    );
  }, 120_000);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('has file blocks and commands to run', () => {
    expect(steps.filter((s) => s.kind === 'file').length).toBeGreaterThan(3);
    expect(steps.filter((s) => s.kind === 'run').length).toBeGreaterThan(10);
  });

  for (const [index, step] of steps.entries()) {
    const title = step.kind === 'file' ? `writes ${step.path}` : `$ ${step.command}`;
    it(`step ${index + 1}: ${title}`, () => {
      if (step.kind === 'file') {
        mkdirSync(dirname(join(project, step.path)), { recursive: true });
        writeFileSync(join(project, step.path), step.content);
        return;
      }
      // `npx dsh-mode` runs node_modules/.bin/dsh-mode; calling it directly keeps npm's own notices out of the output.
      const command = step.command.replace(/^npx dsh-mode\b/, './node_modules/.bin/dsh-mode');
      const result = spawnSync('sh', ['-c', `${command} 2>&1`], {
        cwd: project,
        encoding: 'utf8',
        env: {
          ...process.env,
          NO_COLOR: '1',
          npm_config_offline: 'true',
          npm_config_update_notifier: 'false',
        },
      });
      expect(normalize(result.stdout, pkg)).toBe(normalize(step.output, pkg));
    });
  }
});
