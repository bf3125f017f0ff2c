/**
 * The precompiled validators of cordis.schema.json and mode-config.schema.json (`npm run gen:types`), typed.
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { validateDeployment, validateModeConfig } from './config-validators.generated.js';

/** A whole deployment file's data, inline modes included. */
export const deploymentValidator = validateDeployment as unknown as ValidateFunction;

/** The mode plugin's config, as given in code. */
export const modeConfigValidator = validateModeConfig as unknown as ValidateFunction;
