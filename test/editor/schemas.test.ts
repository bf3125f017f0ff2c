/**
 * `schema/cordis.schema.json` on its own terms: it agrees with the deployment loader's plugin names, ajv (the
 * validator the project uses) resolves its references to `mode-config.schema.json` and `policy.schema.json` by
 * `$id` and judges real deployments the way the loader would, and every property carries the descriptions an
 * editor shows on hover. The editor behaviour itself is proven in language-server.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PLUGIN_NAMES } from '../../src/apps/plugin-names.js';

const ROOT = join(import.meta.dirname, '../..');
const load = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'schema', name), 'utf8')) as Record<string, any>;
const cordis = load('cordis.schema.json');

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(load('policy.schema.json'));
ajv.addSchema(load('mode-config.schema.json'));
const validate = ajv.compile(cordis);

function errors(yaml: string): string[] {
  return validate(parse(yaml)) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('schema/cordis.schema.json', () => {
  it('lists exactly the plugin names the deployment loader knows', () => {
    expect([...cordis.definitions.pluginName.enum].sort()).toEqual(Object.keys(PLUGIN_NAMES).sort());
    expect(cordis.definitions.pluginName.markdownEnumDescriptions).toHaveLength(
      cordis.definitions.pluginName.enum.length,
    );
  });

  it('accepts a deployment with the host, the mode plugin (files and inline modes) and a model', () => {
    const deployment = [
      '- name: host',
      '  config: { workspace: ., builtinTools: true }',
      '- name: mode',
      '  config:',
      '    policies: [policies, ops/review.yaml]',
      '    modes:',
      '      plan: { tools: { web_fetch: deny } }',
      '      guarded: { tools: { write: { decision: ask, reason: Writes need a look. } }, default: deny }',
      '- id: model',
      '  name: openai',
      '  config: { baseUrl: "https://api.deepseek.com", model: deepseek-chat, timeoutMs: 60000 }',
    ].join('\n');
    expect(errors(deployment)).toEqual([]);
  });

  it('accepts the repository’s own cordis.yml', () => {
    expect(errors(readFileSync(join(ROOT, 'cordis.yml'), 'utf8'))).toEqual([]);
  });

  it('types the mode plugin’s config through mode-config.schema.json and the policy schema', () => {
    expect(errors('- name: mode\n  config: { polices: [x] }\n')).toContainEqual(
      '/0/config must NOT have additional properties',
    );
    expect(
      errors('- name: mode\n  config: { modes: { review: { tools: { read: maybe } } } }\n').length,
    ).toBeGreaterThan(0);
    expect(errors('- name: mode\n  config: { modes: { Review: {} } }\n').length).toBeGreaterThan(0);
  });

  it('rejects an unknown plugin, an unknown entry key, and a config that is not a mapping', () => {
    expect(errors('- name: hots\n')).toContainEqual('/0/name must be equal to one of the allowed values');
    expect(errors('- name: host\n  conf: {}\n')).toContainEqual('/0 must NOT have additional properties');
    expect(errors('- name: host\n  config: [a]\n')).toContainEqual('/0/config must be object');
    expect(errors('name: host\n')).toContainEqual(' must be array');
  });

  it('describes every property for hover, in plain and Markdown text', () => {
    const missing: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (record.properties && typeof record.properties === 'object') {
        for (const [key, value] of Object.entries(
          record.properties as Record<string, Record<string, unknown>>,
        )) {
          const described =
            typeof value.$ref === 'string' || (value.description && value.markdownDescription);
          if (!described) missing.push(`${where}.${key}`);
        }
      }
      // `if` blocks only match names; they are conditions, not properties an editor hovers.
      for (const [key, value] of Object.entries(record)) if (key !== 'if') walk(value, `${where}.${key}`);
    };
    walk(cordis.definitions, 'definitions');
    expect(missing).toEqual([]);
  });
});

describe('descriptions both language servers show', () => {
  // yaml-language-server shows a property's own description beside its `$ref`; vscode-json-languageservice
  // shows the referenced definition's instead when it has one. So a property with a `$ref` carries its own, and
  // a definition that properties reference carries none (its text is its `$comment`, for the reference docs).
  for (const name of ['policy.schema.json', 'mode-config.schema.json']) {
    it(`${name}: every $ref property is described itself, and what it references is not`, () => {
      const schema = load(name);
      const problems: string[] = [];
      const walk = (node: unknown, where: string): void => {
        if (typeof node !== 'object' || node === null) return;
        const record = node as Record<string, any>;
        for (const [key, value] of Object.entries((record.properties ?? {}) as Record<string, any>)) {
          if (typeof value?.$ref !== 'string') continue;
          if (!value.description || !value.markdownDescription)
            problems.push(`${where}.${key}: no description`);
          const [file, pointer = ''] = (value.$ref as string).split('#');
          const target = pointer
            .split('/')
            .filter(Boolean)
            .reduce((n: any, seg: string) => n?.[seg], file ? load(file) : schema);
          if (target?.title && (target.description || target.markdownDescription))
            problems.push(`${where}.${key}: ${value.$ref} has a description that hides the property's`);
        }
        for (const [key, value] of Object.entries(record)) walk(value, `${where}.${key}`);
      };
      walk(schema, name);
      expect(problems).toEqual([]);
    });
  }
});
