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
import { sortDiagnostics } from './diagnostics.js';
import { ruleContexts } from './lint-context.js';
import type { LoadResult } from './load.js';
import type { ToolCatalogEntry } from './catalog.js';
import { rules } from './rules/index.js';
import type { MessageTemplate, RuleDefinition } from './rules/define.js';
import type { Diagnostic, JsonPath, Range } from './types.js';

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
          out.push(
            finding(
              rule,
              interpolate(template?.text ?? messageId, data),
              messageId,
              file,
              path,
              range,
              template?.help ? interpolate(template.help, data) : undefined,
            ),
          );
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
 * One rule's finding, made in one go with the fields it has (`range` and `help` only when set): a lint keeps tens of
 * thousands, and fields added afterwards would each move the object to a new shape and a separate property store.
 */
function finding(
  rule: RuleDefinition,
  message: string,
  messageId: string,
  file: string | null,
  path: JsonPath,
  range: Range | undefined,
  help: string | undefined,
): Diagnostic {
  const code = rule.id;
  const severity = rule.meta.severity;
  if (range === undefined) {
    return help === undefined
      ? { code, severity, message, messageId, file, path }
      : { code, severity, message, messageId, file, path, help };
  }
  return help === undefined
    ? { code, severity, message, messageId, file, path, range }
    : { code, severity, message, messageId, file, path, range, help };
}

/**
 * Fills `{{name}}` slots; unknown slots stay as written (ESLint's behaviour), so a typo shows instead of vanishing.
 * @param text a template
 * @param data slot values
 * @returns the rendered text
 */
export function interpolate(text: string, data: Readonly<Record<string, string | number>>): string {
  const parts = templateParts(text);
  if (parts.length === 1) return parts[0]!;
  // Joined once, not concatenated piece by piece: a lint keeps tens of thousands of messages, and each `+=` would
  // leave a chain of string cells behind every one of them until it is flattened.
  const pieces: string[] = [parts[0]!];
  for (let i = 1; i < parts.length; i += 3) {
    const name = parts[i + 1]!;
    pieces.push(Object.hasOwn(data, name) ? String(data[name]) : parts[i]!, parts[i + 2]!);
  }
  return pieces.join('');
}

const SLOT = /\{\{\s*([\w-]+)\s*\}\}/g;
/** Templates split once (a big lint renders the same few templates tens of thousands of times); bounded. */
const templates = new Map<string, string[]>();

/** `[text, (slot as written, slot name, text)*]`. */
function templateParts(text: string): string[] {
  let parts = templates.get(text);
  if (parts !== undefined) return parts;
  parts = [];
  let last = 0;
  for (const m of text.matchAll(SLOT)) {
    parts.push(text.slice(last, m.index), m[0], m[1]!);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  if (templates.size >= 1024) templates.clear();
  templates.set(text, parts);
  return parts;
}
