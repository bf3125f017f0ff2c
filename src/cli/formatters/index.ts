/**
 * The registry of `lint` formatters: a plain name → loader map (`--format NAME`). Each formatter is imported only
 * when chosen: `sarif` lists every rule's metadata, so importing it loads all the lint rules, which a cold
 * `dsh-mode lint` with the default format does not need.
 * @module
 */
import type { FormatContext, LintReport } from '../report.js';

/** What `lint` adds to the format context: `--annotate-infos` (the `github` format reads it). */
export type LintFormatContext = FormatContext & { annotateInfos?: boolean };

/** A lint formatter: pure, report in, text out. */
export type LintFormatter = (report: LintReport, context: LintFormatContext) => string;

/** Every lint formatter by name, as a loader. */
export const lintFormatters = {
  github: async () => (await import('./github.js')).formatGithub,
  json: async () => (await import('./json.js')).formatJson,
  sarif: async () => (await import('./sarif.js')).formatSarif,
  stylish: async () => (await import('./stylish.js')).formatStylish,
} as const satisfies Record<string, () => Promise<LintFormatter>>;

/** A formatter name. */
export type LintFormatName = keyof typeof lintFormatters;
