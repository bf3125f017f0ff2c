/**
 * Validating parsed policy data against schema/policy.schema.json with ajv, with findings on source positions.
 *
 * Contract: the validator is precompiled at build time (policy-validator.generated.ts); its errors become
 * diagnostics through the shared translator of `ajv-errors.ts`. `document` is returned only when there is no
 * error.
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { schemaDiagnostics } from './ajv-errors.js';
import { hasErrors, makeDiagnostic, sortDiagnostics, type LoadDiagnostic } from './diagnostics.js';
import type { ParsedDocument } from './parse.js';
import { validate as precompiled } from './policy-validator.generated.js';
import type { PolicyDocument } from './schema-types.generated.js';
import { expandBraces, MAX_COMPILED_ALTERNATIVES } from './glob.js';
import type { JsonPath } from './types.js';

/** The outcome of validation: the typed document when valid, and every finding. */
export interface ValidateResult {
  document?: PolicyDocument;
  diagnostics: LoadDiagnostic[];
}

/**
 * The validator for one policy document: ajv's code for schema/policy.schema.json, precompiled by
 * `npm run gen:types` (allErrors, strict, verbose), so no schema is compiled at run time.
 * @returns the ajv validate function
 */
export function policyValidator(): ValidateFunction {
  return precompiled as unknown as ValidateFunction;
}

/**
 * Validates parsed data (skipped when parsing failed: parse errors already refuse the file).
 * @returns the document when valid, and the parse and schema diagnostics
 */
export function validatePolicy(parsed: ParsedDocument): ValidateResult {
  const diagnostics: LoadDiagnostic[] = [...parsed.diagnostics];
  // Parsing leaves `data` undefined only with an error diagnostic already recorded.
  if (parsed.data === undefined) return { diagnostics };
  const validate = policyValidator();
  if (validate(parsed.data)) {
    for (const d of uncompilableSelectors(parsed.data as PolicyDocument, parsed)) diagnostics.push(d);
    return hasErrors(diagnostics)
      ? { diagnostics: sortDiagnostics(diagnostics) }
      : { document: parsed.data as PolicyDocument, diagnostics };
  }
  for (const d of schemaDiagnostics(validate.errors ?? [], parsed)) diagnostics.push(d);
  return { diagnostics: sortDiagnostics(diagnostics) };
}

/**
 * Selectors the compiler cannot expand: refused with the file, because a rule that silently decides nothing would
 * let its tools fall through to a wider decision (fail closed).
 */
function uncompilableSelectors(document: PolicyDocument, parsed: ParsedDocument): LoadDiagnostic[] {
  const out: LoadDiagnostic[] = [];
  for (const selector of Object.keys(document.tools ?? {})) {
    if (expandBraces(selector, MAX_COMPILED_ALTERNATIVES) !== undefined) continue;
    const path: JsonPath = ['tools', selector];
    out.push(
      makeDiagnostic(
        'too-large',
        'error',
        `selector \`${selector}\` expands to more than ${MAX_COMPILED_ALTERNATIVES} brace alternatives: the file is refused`,
        parsed.file,
        path,
        parsed.keyRange(path) ?? parsed.locate([]),
        'write several selectors, or use `*` or a `[...]` class instead of long brace lists',
      ),
    );
  }
  for (const [selector, value] of Object.entries(document.tools ?? {})) {
    if (typeof value === 'string') continue;
    for (const pattern of Object.keys(value.paths ?? {})) {
      if (expandBraces(pattern, MAX_COMPILED_ALTERNATIVES) !== undefined) continue;
      const path: JsonPath = ['tools', selector, 'paths', pattern];
      out.push(
        makeDiagnostic(
          'too-large',
          'error',
          `path pattern \`${pattern}\` expands to more than ${MAX_COMPILED_ALTERNATIVES} brace alternatives: the file is refused`,
          parsed.file,
          path,
          parsed.keyRange(path) ?? parsed.locate([]),
          'write several patterns, or use `*` or a `[...]` class instead of long brace lists',
        ),
      );
    }
  }
  return out;
}

export { pointerToPath } from './ajv-errors.js';
