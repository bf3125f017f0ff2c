/**
 * Item 1, policies: random documents (valid and broken) through parse → validate → compile → lint never throw;
 * every valid set of documents decides every tool exactly as the independent reference evaluator of the policy language,
 * docs/reference/policy-language.md does (decision, deciding selector, deciding file, reason), and lint's `failing-test` fires exactly
 * for the inline tests the reference says fail; random YAML and byte garbage give error diagnostics, never throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicies, hasErrors, lintPolicies, loadPolicyText } from '../../src/compile/api.js';
import { type SourceDocument } from '../../src/compile/types.js';
import { parseDeployment } from '../../src/deploy/index.js';
import { check } from './config.js';
import {
  brokenSelectorArb,
  damageArb,
  documentArb,
  hintsArb,
  serialise,
  toolNameArb,
  type GeneratedDocument,
} from './policy-arbitraries.js';
import { decideReference, type RefDocument } from './reference.js';

const formatArb = fc.constantFrom<'yaml' | 'json'>('yaml', 'json');

/** Loads generated documents as files `doc0.yaml`…; fails when a valid one is refused. */
function loadAll(docs: readonly GeneratedDocument[], format: 'yaml' | 'json'): SourceDocument[] {
  return docs.map((doc, i) => {
    const result = loadPolicyText(serialise(doc, format), `doc${i}.${format}`);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.documents).toHaveLength(1);
    return result.documents[0]!;
  });
}

describe('fuzz: policy documents', () => {
  it('valid documents decide every tool as the reference evaluator does', async () => {
    await check(
      'fuzz',
      'policy: compiled decide() == reference evaluator',
      fc.property(
        fc.array(documentArb, { minLength: 1, maxLength: 4 }),
        formatArb,
        fc.array(fc.tuple(toolNameArb, hintsArb), { minLength: 1, maxLength: 12 }),
        (docs, format, queries) => {
          const sources = loadAll(docs, format);
          // The reference reads the documents as loaded (the parse is not what it checks; resolution is).
          const plain = sources.map((s) => s.document as unknown as RefDocument);
          const set = compilePolicies(sources);
          for (const mode of ['m', 'n']) {
            const policy = set.get(mode);
            if (!docs.some((d) => d.mode === mode)) {
              expect(policy).toBeUndefined();
              continue;
            }
            for (const [name, hints] of queries) {
              const got = policy!.decide(name, hints);
              const want = decideReference(plain, mode, name, hints);
              expect(
                {
                  decision: got.decision,
                  selector: got.rule.selector,
                  file: got.rule.file,
                  reason: got.reason,
                },
                `${mode} ${JSON.stringify(name)} ${JSON.stringify(hints)}`,
              ).toEqual({
                decision: want.decision,
                selector: want.selector,
                file: want.document < 0 ? null : `doc${want.document}.${format}`,
                reason: want.reason,
              });
              expect(policy!.visible(name, hints)).toBe(want.decision !== 'deny');
            }
          }
        },
      ),
      [100, 20_000],
      '1–4 documents of 2 modes, YAML or JSON; selectors with *, ?, classes, escapes, braces; 1–12 queries each',
    );
  });

  it('lint never throws, has no internal error, and fails exactly the inline tests the reference fails', async () => {
    await check(
      'fuzz',
      'policy: lint failing-test == reference',
      fc.property(fc.array(documentArb, { minLength: 1, maxLength: 3 }), (docs) => {
        const sources = loadAll(docs, 'yaml');
        const findings = lintPolicies({ documents: sources, diagnostics: [] });
        expect(findings.filter((d) => d.code === 'internal-error')).toEqual([]);
        const plain = sources.map((s) => s.document as unknown as RefDocument);
        docs.forEach((doc, i) => {
          const failing = (doc.tests ?? [])
            .map((t, index) => ({ t, index }))
            .filter(
              ({ t }) =>
                decideReference(plain.slice(0, i + 1), doc.mode, t.tool, t.annotations).decision !== t.expect,
            )
            .map(({ index }) => index);
          const reported = findings
            .filter((d) => d.code === 'failing-test' && d.file === `doc${i}.yaml`)
            .map((d) => d.path[1]);
          expect(reported).toEqual(failing);
        });
      }),
      [50, 10_000],
      '1–3 documents with 0–3 inline tests each',
    );
  });

  it('broken documents are refused with an error diagnostic and never throw', async () => {
    await check(
      'fuzz',
      'policy: damaged documents are refused',
      fc.property(documentArb, damageArb, formatArb, (doc, damage, format) => {
        const text = serialise(damage.apply(doc as unknown as Record<string, unknown>), format);
        const result = loadPolicyText(text, 'broken.yaml');
        expect(result.documents, damage.kind).toEqual([]);
        expect(hasErrors(result.diagnostics), damage.kind).toBe(true);
        for (const d of result.diagnostics) {
          expect(typeof d.code).toBe('string');
          expect(d.message.length).toBeGreaterThan(0);
        }
      }),
      [75, 10_000],
      '16 kinds of damage (unknown keys, wrong types, reserved or bad mode names, non-object documents)',
    );
  });

  it('broken selectors compile and lint without throwing, and decide() stays total', async () => {
    await check(
      'fuzz',
      'policy: broken selectors never throw',
      fc.property(
        documentArb,
        fc.array(brokenSelectorArb, { minLength: 1, maxLength: 3 }),
        fc.array(toolNameArb, { maxLength: 8 }),
        (doc, selectors, names) => {
          const tools = { ...doc.tools };
          for (const s of selectors) tools[s] = 'allow';
          const result = loadPolicyText(serialise({ ...doc, tools }, 'yaml'), 'sel.yaml');
          if (result.documents.length === 0) {
            expect(hasErrors(result.diagnostics)).toBe(true);
            return;
          }
          const findings = lintPolicies(result);
          expect(findings.filter((d) => d.code === 'internal-error')).toEqual([]);
          const policy = compilePolicies(result.documents).get(doc.mode)!;
          for (const name of names) expect(['allow', 'ask', 'deny']).toContain(policy.decide(name).decision);
        },
      ),
      [40, 5_000],
      'valid documents plus unclosed classes, unbalanced braces, brace bombs, extglob/negation/comment syntax',
    );
  });
});

/** YAML-ish token soup: the syntax most likely to reach odd corners of the parser. */
const yamlSoup = fc
  .array(
    fc.constantFrom(
      'mode',
      'tools',
      'effects',
      'default',
      ':',
      ': ',
      '- ',
      '\n',
      '\n  ',
      '  ',
      '&a ',
      '*a',
      '<<: *a',
      '!!str ',
      '!!binary ',
      '!custom ',
      '{',
      '}',
      '[',
      ']',
      ',',
      '"',
      "'",
      '#',
      '---\n',
      '...\n',
      '%YAML 1.2\n',
      '? ',
      '|',
      '>',
      'plan',
      'deny',
      'allow',
      'ask',
      '~',
      'null',
      '0x1F',
      '.inf',
      '\t',
      '\\',
      '\u00e9',
      '\ufeff',
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

describe('fuzz: garbage text', () => {
  it('random YAML, strings and bytes give diagnostics or a document, never a throw', async () => {
    await check(
      'fuzz',
      'garbage: policy text never throws',
      fc.property(
        fc.oneof(
          yamlSoup,
          fc.string({ unit: 'binary', maxLength: 400 }),
          fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')),
          fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('utf8')),
        ),
        (text) => {
          const result = loadPolicyText(text, 'garbage.yaml');
          if (result.documents.length === 0) expect(hasErrors(result.diagnostics)).toBe(true);
          else lintPolicies(result);
          for (const d of result.diagnostics) {
            if (d.range) expect(d.range.start.line).toBeGreaterThanOrEqual(1);
          }
        },
      ),
      [250, 50_000],
      'YAML token soup, binary strings, latin-1 and UTF-8 decoded random bytes',
    );
  });

  it('random cordis.yml text gives issues, never a throw', async () => {
    await check(
      'fuzz',
      'garbage: cordis.yml never throws',
      fc.property(
        fc.oneof(
          yamlSoup.map((s) => `- name: mode\n  config:\n    ${s}`),
          yamlSoup,
          fc.string({ unit: 'binary', maxLength: 300 }),
        ),
        (text) => {
          const parsed = parseDeployment(text, 'cordis.yml', '/nonexistent');
          expect(Array.isArray(parsed.diagnostics)).toBe(true);
        },
      ),
      [125, 20_000],
      'cordis.yml with token soup under a mode entry, bare soup, binary strings',
    );
  });
});
