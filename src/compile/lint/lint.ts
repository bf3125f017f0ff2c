/**
 * The lint runner: load diagnostics (syntax, schema, unknown and duplicate keys, keeping their codes) plus the
 * findings of every rule in `rules/index.ts` on every loaded document, deduped and sorted by file, range and code.
 *
 * Rules report JSON paths; the runner maps each to a range through the document's `locate` (the Spectral model),
 * renders the message and help from the rule's templates, and stamps the rule's id and severity. Lint never
 * blocks compiling (the policy language, docs/reference/policy-language.md): it only reads the loaded documents.
 *
 * A rule that throws is a bug, not a user error: it becomes an `internal-error` diagnostic on that document
 * (an error, so CI fails closed) and the other rules still run.
 * @module
 */
import { sortDiagnostics } from '../language/diagnostics.js';
import { ruleContexts } from './context.js';
import type { LoadResult } from '../language/load.js';
import type { ToolCatalogEntry } from '../catalog/catalog.js';
import { rules } from './rules/index.js';
import type { MessageTemplate, RuleDefinition } from './rules/define.js';
import type { Diagnostic } from '../types.js';

/** What lint reads: a {@link LoadResult}, or the same shape with extra diagnostics (a catalog's) merged in. */
export interface LintInput {
  documents: LoadResult['documents'];
  diagnostics: readonly Diagnostic[];
}

/** Options of {@link lintPolicies}. */
export interface LintOptions {
  /** The deployment's tools (`--tools`): enables `unmatched-rule` and `default-decided`. */
  catalog?: readonly ToolCatalogEntry[];
  /** The rules to run; all registered rules by default (tests pass one). */
  rules?: readonly RuleDefinition[];
}

/**
 * Lints loaded policies.
 * @param load what `loadPolicySources` returned
 * @param options the catalog, and optionally a subset of rules
 * @returns every diagnostic, sorted by file, range and code, without duplicates
 */
export function lintPolicies(load: LintInput, options: LintOptions = {}): Diagnostic[] {
  const out: Diagnostic[] = [...load.diagnostics];
  const selected = options.rules ?? Object.values(rules);
  // One context at a time: what a context computes about its document is garbage once its rules have run.
  for (const context of ruleContexts(load.documents, options.catalog)) {
    const { file, locate, keyRange } = context.source;
    for (const rule of selected) {
      try {
        rule.check(context, ({ messageId, data = {}, path }) => {
          const template: MessageTemplate | undefined = rule.meta.messages[messageId];
          // A path that ends in a key (`tools.web_*`, `default`) points at the key, where the rule is written.
          const range = (typeof path.at(-1) === 'string' ? keyRange?.(path) : undefined) ?? locate(path);
          const help = template?.help ? interpolate(template.help, data) : undefined;
          out.push({
            code: rule.id,
            severity: rule.meta.severity,
            message: interpolate(template?.text ?? messageId, data),
            messageId,
            file,
            path,
            ...(range === undefined ? {} : { range }),
            ...(help === undefined ? {} : { help }),
          });
        });
      } catch (error) {
        out.push({
          code: 'internal-error',
          severity: 'error',
          message: `rule \`${rule.id}\` failed on this document: ${(error as Error)?.message ?? String(error)}`,
          file,
          path: [],
          help: 'this is a bug in dsh-mode: please report it with the policy that triggers it',
        });
      }
    }
  }
  return sortDiagnostics(out);
}

/**
 * Fills `{{name}}` slots; unknown slots stay as written (ESLint's behaviour), so a typo shows instead of vanishing.
 * @param text a template
 * @param data slot values
 * @returns the rendered text
 */
export function interpolate(text: string, data: Readonly<Record<string, string | number>>): string {
  return text.replace(SLOT, (slot: string, name: string) =>
    Object.hasOwn(data, name) ? String(data[name]) : slot,
  );
}

const SLOT = /\{\{\s*([\w-]+)\s*\}\}/g;
