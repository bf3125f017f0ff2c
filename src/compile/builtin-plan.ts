/**
 * Where the built-in plan is, and how every output names it. Pure (no Node import), so that the engine's
 * `authorize`, which loads nothing of Node's, can name the plan in the messages it writes: beside
 * `compile/index.ts` and `compile/types.ts`, the one module of compile other layers may import directly
 * (test/architecture.test.ts).
 * @module
 */

/** The built-in plan policy: `policies/plan.yaml` of the package, from `src/` and `dist/` alike. */
export const BUILTIN_PLAN_URL: URL = new URL('../../policies/plan.yaml', import.meta.url);

/**
 * How every output names the built-in plan: its place in the package, not where the package happens to be
 * installed (an absolute `node_modules` path means nothing in a PR comment or in a message to the model, and the
 * file is not the operator's).
 */
export const BUILTIN_PLAN_LABEL = 'dsh-mode:policies/plan.yaml';

/** The plan's path as the loader reports it (Node's `fileURLToPath`, without importing Node: a test holds them equal). */
const BUILTIN_PLAN_FILE = ((): string => {
  const path = decodeURIComponent(BUILTIN_PLAN_URL.pathname);
  // A Windows drive (`/C:/…`) is `C:\…`.
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1).replaceAll('/', '\\') : path;
})();

/**
 * A file as messages show it: the built-in plan by {@link BUILTIN_PLAN_LABEL}, any other file as given.
 * @param file the file as reported
 * @returns the name to show
 */
export function shownFile(file: string): string {
  return file === BUILTIN_PLAN_FILE ? BUILTIN_PLAN_LABEL : file;
}
