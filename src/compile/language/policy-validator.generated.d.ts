/**
 * The shape of `policy-validator.generated.js`: ajv's standalone validator of schema/policy.schema.json, written
 * by `npm run build` (scripts/gen-validators.mjs) and not kept in git. This declaration is, so type-checking needs
 * no build.
 * @module
 */
import type { ValidateFunction } from 'ajv';

/** Validates one policy document's data (allErrors, strict, verbose). */
export declare const validate: ValidateFunction;
