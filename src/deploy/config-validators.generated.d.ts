/**
 * The shape of `config-validators.generated.js`: ajv's standalone validators of schema/cordis.schema.json and
 * schema/mode-config.schema.json, written by `npm run build` (scripts/gen-validators.mjs) and not kept in git.
 * This declaration is, so type-checking needs no build.
 * @module
 */
import type { ValidateFunction } from 'ajv';

/** Validates a whole deployment file's data, inline modes included. */
export declare const validateDeployment: ValidateFunction;

/** Validates the mode plugin's config, as given in code. */
export declare const validateModeConfig: ValidateFunction;
