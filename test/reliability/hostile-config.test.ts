/**
 * Item 3, configuration: cordis.yml (through the deployment loader of src/apps/deployment.ts) and policy files
 * (through `loadPolicySources` and the plugin's `resolveModeConfig`) with alias bombs, a folder that lists itself
 * through a symbolic link, symbolic-link loops, a policy path that is a folder, duplicates and missing files. Each
 * is refused with a precise error naming the file; none hangs or throws anything but the loader's own error type;
 * a deployment that cannot load starts nothing.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicySources } from '../../src/compile/api.js';
import { resolveModeConfig } from '../../src/engine/index.js';
import { DeploymentError, planDeployment, startDeployment } from '../../src/apps/deployment.js';
import { tempDir } from '../engine/setup.js';
import { measured } from './config.js';

function aliasBomb(indent: string): string {
  const lines = [`${indent}a: &a ["x","x","x","x","x","x","x","x","x","x"]`];
  for (let i = 1; i < 12; i++) {
    const p = String.fromCharCode(96 + i);
    const c = String.fromCharCode(97 + i);
    lines.push(`${indent}${c}: &${c} [*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p},*${p}]`);
  }
  return lines.join('\n');
}

/** Starts a deployment from a cordis.yml text; returns the error it must refuse with. */
async function refuse(dir: string, text: string): Promise<DeploymentError> {
  const file = join(dir, 'cordis.yml');
  writeFileSync(file, text);
  try {
    const plan = planDeployment({ cwd: dir, config: file });
    const runtime = await startDeployment(plan, { workspace: dir, log: () => {} });
    await runtime.dispose();
  } catch (error) {
    expect(error).toBeInstanceOf(DeploymentError);
    return error as DeploymentError;
  }
  throw new Error('the deployment started');
}

describe('hostile configuration', () => {
  it('cordis.yml: alias bombs, self-listing folders, loops and missing files are refused precisely', async () => {
    await measured('hostile', 'config: cordis.yml and policy sources', null, async () => {
      const dir = tempDir('dsh-hostile-config-');
      let cases = 0;
      // An alias bomb at the top of the file, and one inside the mode plugin's config.
      const top = await refuse(dir, `${aliasBomb('')}\n`);
      expect(top.message).toMatch(/cordis\.yml:\d+:\d+: .*alias/i);
      cases++;
      const inner = await refuse(
        dir,
        `- name: mode\n  config:\n    modes:\n      plan:\n${aliasBomb('        ')}\n`,
      );
      expect(inner.message).toMatch(/cordis\.yml:\d+:\d+: /);
      cases++;
      // A policies entry that does not exist.
      const missing = await refuse(dir, '- name: mode\n  config:\n    policies: [nope.yaml, nope-folder/]\n');
      expect(missing.message).toContain('nope.yaml');
      expect(missing.message).toContain('nope-folder');
      cases++;
      // A policies folder with a symbolic link to itself (named like a policy) and a two-link loop.
      const policies = join(dir, 'policies');
      mkdirSync(policies);
      writeFileSync(join(policies, 'ok.yaml'), 'mode: review\ndefault: deny\n');
      symlinkSync(policies, join(policies, 'self.yaml'));
      symlinkSync(join(policies, 'loop-b.yaml'), join(policies, 'loop-a.yaml'));
      symlinkSync(join(policies, 'loop-a.yaml'), join(policies, 'loop-b.yaml'));
      const loops = await refuse(
        dir,
        '- name: mode\n  config:\n    policies: [policies, policies, ./policies/ok.yaml]\n',
      );
      expect(loops.message).toContain('self.yaml');
      expect(loops.message).toContain('loop-a.yaml');
      cases++;
      // The folder holding cordis.yml itself, listed as a policy folder: cordis.yml is read as a policy and refused.
      const itself = await refuse(dir, '- name: mode\n  config:\n    policies: [.]\n');
      expect(itself.message).toContain('cordis.yml');
      cases++;
      return {
        runs: cases,
        violations: 0,
        notes:
          'alias bombs (top level, inside config), missing paths, self-link, link loop, the config folder itself',
      };
    });
  });

  it('policy sources: loops and duplicates load each real file once and report each bad path', async () => {
    await measured('hostile', 'config: loadPolicySources loops and duplicates', null, async () => {
      const dir = tempDir('dsh-hostile-policies-');
      writeFileSync(join(dir, 'a.yaml'), 'mode: review\ndefault: deny\n');
      symlinkSync(join(dir, 'a.yaml'), join(dir, 'alias.yaml'));
      symlinkSync(dir, join(dir, 'self.yml'));
      symlinkSync(join(dir, 'x.yaml'), join(dir, 'y.yaml'));
      symlinkSync(join(dir, 'y.yaml'), join(dir, 'x.yaml'));
      writeFileSync(join(dir, 'bomb.yaml'), `mode: review\n${aliasBomb('')}\n`);
      const load = await loadPolicySources([dir, dir, join(dir, 'a.yaml'), join(dir, 'missing.yaml')], {
        builtin: true,
      });
      // a.yaml once (alias.yaml and the repeats are the same real file), plus the built-in plan.
      expect(load.documents.map((d) => d.document.mode)).toEqual(['plan', 'review']);
      const errors = load.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => `${d.file?.split('/').pop()} ${d.code}`);
      expect(errors).toEqual(
        expect.arrayContaining([
          'bomb.yaml alias-limit',
          'self.yml io',
          'x.yaml io',
          'y.yaml io',
          'missing.yaml io',
        ]),
      );
      const resolved = await resolveModeConfig({ policies: [dir] });
      expect(resolved.value).toBeUndefined();
      expect(resolved.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      return {
        runs: 6,
        violations: 0,
        notes: 'file alias, folder self-link, link loop, alias bomb, repeats, missing file',
      };
    });
  });
});
