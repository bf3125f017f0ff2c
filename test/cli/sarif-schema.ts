/**
 * A validator for SARIF 2.1.0 logs built from the official schema (draft-04, vendored in test/fixtures/ from a
 * registry package; see test/fixtures/README.md). The schema's string formats get real checks, so a malformed
 * URI or timestamp fails instead of passing as an unknown format.
 * @module
 */
import { readFileSync } from 'node:fs';
import Ajv from 'ajv-draft-04';

const schema = JSON.parse(
  readFileSync(new URL('../fixtures/sarif-2.1.0-rtm.5.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

// The schema's `language` pattern has a stray `]` that is legal only without the `u` flag (as in most engines).
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
ajv.addFormat('uri', (s: string) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) && URL.canParse(s));
ajv.addFormat('uri-reference', (s: string) => !/\s/.test(s) && URL.canParse(s, 'file:///base/'));
ajv.addFormat('date-time', (s: string) =>
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s),
);

/** Validates a SARIF log; the returned errors are ajv's, for readable failures. */
export const validateSarif = ajv.compile(schema);
