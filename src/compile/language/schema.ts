/**
 * The policy language's JSON Schema as data: schema/policy.schema.json of the package, the file editors and the
 * generated validator use, read when this module is first imported (only `index.ts` imports it).
 * @module
 */
import { readFileSync } from 'node:fs';

/** schema/policy.schema.json (draft-07), parsed. */
export const policySchema: { readonly [key: string]: unknown } = JSON.parse(
  readFileSync(new URL('../../../schema/policy.schema.json', import.meta.url), 'utf8'),
) as { readonly [key: string]: unknown };
