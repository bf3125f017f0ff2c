// schema/policy.schema.json: the editor-facing contract (draft-07, a relative $id, strict, documented everywhere).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { policySchema } from '../../../src/compile/api.js';

type Node = Record<string, unknown>;

function* objects(node: unknown, path = '#'): Generator<[string, Node]> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* objects(item, `${path}/${i}`);
    return;
  }
  yield [path, node as Node];
  for (const [k, v] of Object.entries(node)) {
    if (k === 'examples' || k === 'defaultSnippets' || k === 'default') continue;
    yield* objects(v, `${path}/${k}`);
  }
}

describe('schema/policy.schema.json', () => {
  it('is draft-07 with a stable $id, and `policySchema` is the file', async () => {
    const file = JSON.parse(await readFile('schema/policy.schema.json', 'utf8'));
    expect(file.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(file.$id).toBe('policy.schema.json');
    expect(policySchema).toEqual(file);
  });

  it('each schema of schema/ has its own file name as $id: it resolves to where it is read, naming no site', async () => {
    for (const name of ['policy.schema.json', 'mode-config.schema.json', 'cordis.schema.json']) {
      const file = JSON.parse(await readFile(`schema/${name}`, 'utf8'));
      expect(file.$id, name).toBe(name);
      // Every reference to another schema is relative too, so it resolves beside the file.
      for (const ref of JSON.stringify(file).match(/"\$ref":"[^"]*"/g) ?? []) {
        expect(ref, name).not.toMatch(/:\/\//);
      }
    }
  });

  it('closes every object and documents every property twice', () => {
    for (const [path, node] of objects(policySchema)) {
      // Maps (selector or pattern → decision) and a test's `args` (any call arguments) are open by design. A
      // decision-or-rule value's `anyOf` and `if` only name the kinds it takes; its `then`, the rule object, is
      // closed.
      const open =
        /\/(toolRules|commandRules|pathRules|args)$/.test(path) ||
        /\/(ruleValue|toolRuleValue|patternValue)\/(anyOf\/1|if)$/.test(path);
      if (node.type === 'object' && !open) {
        expect(node.additionalProperties, path).toBe(false);
      }
      // `if`/`then` only restate keys to make `decision` required unless the rule has patterns.
      if (/\/(if|then)$/.test(path)) continue;
      for (const [name, prop] of Object.entries(
        (node.properties as Record<string, Node> | undefined) ?? {},
      )) {
        expect(typeof prop.description, `${path}/properties/${name}`).toBe('string');
        expect(typeof prop.markdownDescription, `${path}/properties/${name}`).toBe('string');
      }
    }
  });

  it('offers snippets for a rule and a test case, and examples', () => {
    type Snippets = { defaultSnippets: { body?: unknown }[] };
    const schema = policySchema as {
      definitions: Record<string, Snippets & { enum?: unknown; not?: unknown }>;
      properties: { tests: Snippets };
      examples: unknown[];
    };
    const defs = schema.definitions;
    expect(defs.toolRules!.defaultSnippets[0]!.body).toBeDefined();
    expect(schema.properties.tests.defaultSnippets[0]!.body).toBeDefined();
    expect(schema.examples.length).toBeGreaterThan(0);
    expect(defs.decision!.enum).toEqual(['allow', 'deny', 'ask']);
    expect(defs.modeName!.not).toEqual({ const: 'default' });
  });
});
