/**
 * The start notice for a plan that allows more than the built-in plan names each widened call with the argument
 * pattern that widens it, and says nothing for a document that only narrows under the ceiling. The notice for
 * another model endpoint says which key it receives, and that none is sent when the variable is not set.
 */
import { describe, expect, it } from 'vitest';
import { deploymentNotices, planWidenings, sandboxLifted } from '../../src/apps/start-notices.js';
import { parseDeployment } from '../../src/deploy/index.js';
import { compilePolicies } from '../../src/compile/decide/compile.js';
import { loadPolicySources, loadPolicyText } from '../../src/compile/language/load.js';

async function plans(extra: string) {
  const builtin = await loadPolicySources([]);
  const base = compilePolicies(builtin.documents).get('plan')!;
  const added = loadPolicyText(extra, 'extra.yaml');
  expect(added.diagnostics).toEqual([]);
  return { plan: compilePolicies([...builtin.documents, ...added.documents]).get('plan')!, base };
}

describe('planWidenings', () => {
  it('names the widened call and the pattern that allows it', async () => {
    const { plan, base } = await plans(
      [
        'mode: plan',
        'override: true',
        'tools:',
        '  bash:',
        '    decision: deny',
        '    commands:',
        '      "git push **": allow',
        'default: deny',
        '',
      ].join('\n'),
    );
    expect(planWidenings(plan, base)).toEqual([
      'bash command="git push x": deny → allow (git push ** at extra.yaml:7:7)',
    ]);
  });

  it('says nothing for an operator allow under the ceiling', async () => {
    const { plan, base } = await plans(
      'mode: plan\ntools:\n  bash:\n    commands:\n      "git push **": allow\n',
    );
    expect(planWidenings(plan, base)).toEqual([]);
  });
});

describe('sandboxLifted', () => {
  const OVERRIDE =
    'mode: plan\noverride: true\ntools:\n  bash:\n    decision: deny\n    commands:\n      "ls **": allow\ndefault: deny\n';

  it('names an override that runs bash without the sandbox, by its key or its absence', async () => {
    const none = await plans(OVERRIDE.replace('override: true\n', 'override: true\nsandbox: none\n'));
    expect(sandboxLifted(none.plan, none.base)).toBe(
      'plan mode runs `bash` without the read-only OS sandbox of the built-in plan (`sandbox: none` at extra.yaml:3:1)',
    );
    const absent = await plans(OVERRIDE);
    expect(sandboxLifted(absent.plan, absent.base)).toBe(
      'plan mode runs `bash` without the read-only OS sandbox of the built-in plan (no `sandbox` key after the override)',
    );
  });

  it('says nothing when the sandbox stays, or when bash is not shown', async () => {
    const kept = await plans(OVERRIDE.replace('override: true\n', 'override: true\nsandbox: read-only\n'));
    expect(sandboxLifted(kept.plan, kept.base)).toBeUndefined();
    const operator = await plans('mode: plan\nsandbox: none\n');
    expect(sandboxLifted(operator.plan, operator.base)).toBeUndefined();
    const hidden = await plans('mode: plan\noverride: true\ntools:\n  read: allow\ndefault: deny\n');
    expect(sandboxLifted(hidden.plan, hidden.base)).toBeUndefined();
  });
});

describe('the endpoint notice', () => {
  const notice = async (config: string, env: NodeJS.ProcessEnv) => {
    const read = parseDeployment(`- name: openai\n  config: ${config}\n`, 'cordis.yml', '/project');
    expect(read.diagnostics).toEqual([]);
    const lines = await deploymentNotices(read.entries, { cwd: '/project', env });
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };
  const elsewhere = '{ baseUrl: "http://model.invalid/v1" }';

  it('names the key the host receives when it is set', async () => {
    const line = await notice(elsewhere, { DEEPSEEK_API_KEY: 'k' });
    expect(line).toContain('model requests go to `http://model.invalid/v1` (`baseUrl` at cordis.yml:2:22)');
    expect(line).toMatch(/: that host receives your DEEPSEEK_API_KEY$/);
    expect(
      await notice('{ baseUrl: "http://model.invalid/v1", apiKeyEnv: MY_KEY }', { MY_KEY: 'k' }),
    ).toMatch(/that host receives your MY_KEY$/);
    expect(await notice('{ baseUrl: "http://model.invalid/v1", apiKey: sk-x }', {})).toMatch(
      /that host receives the `apiKey` of this file$/,
    );
  });

  it('says no key is sent when the variable is not set (or empty)', async () => {
    for (const env of [{}, { DEEPSEEK_API_KEY: '' }]) {
      const line = await notice(elsewhere, env);
      expect(line).not.toContain('receives your');
      expect(line).toMatch(
        /: DEEPSEEK_API_KEY is not set, so no key is sent \(that host would receive it once set\)$/,
      );
    }
    // An empty `apiKey` falls back to the variable, as the model does.
    expect(await notice('{ baseUrl: "http://model.invalid/v1", apiKey: "", apiKeyEnv: MY_KEY }', {})).toMatch(
      /MY_KEY is not set, so no key is sent/,
    );
  });
});
