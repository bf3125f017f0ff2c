/**
 * The registry of `lint` formatters: a plain name → function map (`--format NAME`).
 * @module
 */
import type { FormatContext, LintReport } from '../report.js';
import { formatGithub } from './github.js';
import { formatJson } from './json.js';
import { formatSarif } from './sarif.js';
import { formatStylish } from './stylish.js';

/** What `lint` adds to the format context: `--annotate-infos` (the `github` format reads it). */
export type LintFormatContext = FormatContext & { annotateInfos?: boolean };

/** A lint formatter: pure, report in, text out. */
export type LintFormatter = (report: LintReport, context: LintFormatContext) => string;

/** Every lint formatter by name. */
export const lintFormatters = {
  github: formatGithub,
  json: formatJson,
  sarif: formatSarif,
  stylish: formatStylish,
} as const satisfies Record<string, LintFormatter>;

/** A formatter name. */
export type LintFormatName = keyof typeof lintFormatters;
