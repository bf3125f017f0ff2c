/**
 * Where the built-in plan policy is: `policies/plan.yaml` of the package, the same file from `src/` and `dist/`.
 * Its own module so that both the loader (`load.ts`, which re-exports it) and the built-in snapshot
 * (`builtin-snapshot.ts`, which `load.ts` imports) can name it without a cycle.
 * @module
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the built-in plan policy (policies/plan.yaml of the package, from src/ or dist/). */
export const BUILTIN_PLAN_PATH: string = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../policies/plan.yaml',
);
