/**
 * Rule metadata for SARIF's `tool.driver.rules`: every code `dsh-mode lint` can report, so code scanning shows
 * each finding with a title, a description and help. Lint rules describe themselves (`meta` in
 * `src/compile/lint/rules/<id>.ts`); the codes that loading reports (parse, schema, catalog) are described here,
 * since they have no rule file. Each entry links to the docs anchor of its code.
 * @module
 */
import { rules } from '../../compile/index.js';
import type { Severity } from '../../compile/types.js';

/** Where rule documentation lives in the repository; each code is an anchor on this page. */
export const RULES_DOCS_PATH = 'docs/reference/lint-rules.md';

/** What SARIF needs to know about one code. */
export interface RuleMetadata {
  id: string;
  /** One line: what the rule finds. */
  description: string;
  /** How to fix a finding. */
  fix: string;
  severity: Severity;
  /** A failing and a passing example, when the rule has them. */
  examples?: { failing: string; passing: string };
  /** True for codes that refuse a file at load time (the policy does not start). */
  blocksLoading: boolean;
}

const LOAD_CODES: readonly Omit<RuleMetadata, 'blocksLoading'>[] = [
  {
    id: 'io',
    description: 'a policy file cannot be read',
    fix: 'Check the path and its permissions.',
    severity: 'error',
  },
  {
    id: 'syntax',
    description: 'a YAML or JSON syntax error',
    fix: 'Fix the syntax at the position shown.',
    severity: 'error',
  },
  {
    id: 'duplicate-key',
    description: 'a key appears twice in one mapping',
    fix: 'Keep one of the two keys.',
    severity: 'error',
  },
  {
    id: 'too-large',
    description: 'a policy file exceeds the size limit',
    fix: 'Split the policy into several documents.',
    severity: 'error',
  },
  {
    id: 'too-deep',
    description: 'a policy file nests deeper than the limit',
    fix: 'Flatten the document.',
    severity: 'error',
  },
  {
    id: 'alias-limit',
    description: 'a policy file uses more YAML aliases than the limit',
    fix: 'Write the values out instead of aliasing them.',
    severity: 'error',
  },
  {
    id: 'schema',
    description: 'a value violates the policy schema',
    fix: 'Correct the value as the message says; the schema is `schema/policy.schema.json`.',
    severity: 'error',
  },
  {
    id: 'unknown-key',
    description: 'a key the policy language does not know (a typo never widens a mode)',
    fix: 'Use the suggested key, or remove it.',
    severity: 'error',
  },
  {
    id: 'missing-key',
    description: 'a required key is missing',
    fix: 'Add the key named in the message.',
    severity: 'error',
  },
  {
    id: 'invalid-type',
    description: 'a value has the wrong type',
    fix: 'Write a value of the type the message names.',
    severity: 'error',
  },
  {
    id: 'invalid-decision',
    description: 'a decision other than `allow`, `deny` or `ask`',
    fix: 'Use `allow`, `deny` or `ask`.',
    severity: 'error',
  },
  {
    id: 'invalid-mode-name',
    description: 'a mode name that is not lowercase letters, digits and dashes',
    fix: 'Rename the mode to match `^[a-z][a-z0-9-]*$`.',
    severity: 'error',
  },
  {
    id: 'reserved-mode-name',
    description: 'a document names the reserved mode `default`',
    fix: 'Pick another name: `default` means no mode.',
    severity: 'error',
  },
  {
    id: 'invalid-catalog',
    description: 'the `--tools` catalog cannot be used',
    fix: 'Give a JSON array of `{name, annotations?}` or an MCP `tools/list` result.',
    severity: 'error',
  },
  {
    id: 'duplicate-id',
    description: 'two entries of a deployment (`cordis.yml`) with one `id`',
    fix: 'Give one of them another `id`.',
    severity: 'error',
  },
  {
    id: 'incomplete-deployment',
    description: 'a deployment that cannot start: no `host`, no model or two, or a plugin twice',
    fix: 'Add the missing entry, or remove the second one.',
    severity: 'error',
  },
  {
    id: 'internal-error',
    description: 'a lint rule failed (a bug in dsh-mode)',
    fix: 'Report it with the policy that triggers it.',
    severity: 'error',
  },
];

/**
 * Every code lint can report: the load codes first, then the lint rules, each group sorted by id.
 * @returns fresh metadata objects
 */
export function listRuleMetadata(): RuleMetadata[] {
  const load = LOAD_CODES.map((r) => ({
    ...r,
    blocksLoading: r.id !== 'internal-error' && r.id !== 'invalid-catalog',
  }));
  const lint = Object.values(rules)
    .map<RuleMetadata>((r) => ({
      id: r.id,
      description: r.meta.description,
      fix: r.meta.docs.fix,
      severity: r.meta.severity,
      examples: { failing: r.meta.docs.failing, passing: r.meta.docs.passing },
      blocksLoading: false,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
  return [...load.sort((a, b) => a.id.localeCompare(b.id)), ...lint];
}

/**
 * The docs link of a code: its section of the rules page in the package's repository.
 * @param id a rule id or load code
 * @param repository the repository's web address (`https://github.com/OWNER/REPO`)
 * @returns an absolute URL with the code as its anchor
 */
export function ruleHelpUri(id: string, repository: string): string {
  return `${repository}/blob/HEAD/${RULES_DOCS_PATH}#${encodeURIComponent(id)}`;
}
