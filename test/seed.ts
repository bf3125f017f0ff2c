/**
 * Vitest setup file: every fast-check property in the suite runs from one fixed seed (`DSH_RELIABILITY_SEED`,
 * default 20261130, the reliability suite's base seed), so `npm test` generates the same cases on every run and a
 * failure reproduces as is. A property that passes its own `seed` (the reliability checks derive one per check)
 * keeps it.
 */
import fc from 'fast-check';
import { BASE_SEED } from './reliability/config.js';

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: BASE_SEED });
