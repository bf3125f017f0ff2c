/**
 * `dsh-mode lint --format sarif`: a SARIF 2.1.0 log, the format GitHub code scanning (and most CI dashboards)
 * ingest, so policy findings show inline on pull requests.
 *
 * One run; `tool.driver.rules` lists every code lint can report (from the rule registry and the load codes, see
 * `sarif-rules.ts`) with short and full descriptions, help text and markdown, the default level and, when
 * package.json names a GitHub repository, a `helpUri` into its docs (else no links: no placeholder site);
 * each result names its rule by `ruleId` and `ruleIndex`. Locations are relative URIs with `uriBaseId`
 * `%SRCROOT%` (the folder the command ran in, given in `originalUriBaseIds`) for files inside it, absolute
 * `file:` URIs otherwise; regions are 1-based with an exclusive end column, exactly as SARIF defines them, and
 * columns count UTF-16 code units (JavaScript string offsets). Severity: error → `error`, warning → `warning`,
 * info → `note`. Pure: `(report, options) => string`; a test validates the output against the SARIF schema.
 * @module
 */
import type { Diagnostic, Severity } from '../../compile/types.js';
import type { FormatContext } from '../report.js';
import type { DiagnosticsReport } from './github.js';
import { artifactLocation, folderUri, SRCROOT } from './paths.js';
import { listRuleMetadata, ruleHelpUri, type RuleMetadata } from './sarif-rules.js';

/** The schema URI written into the log (the OASIS 2.1.0 schema). */
export const SARIF_SCHEMA_URI =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** What {@link formatSarif} reads from the format context: the folder relative URIs are based on, the version. */
export type SarifFormatOptions = Pick<FormatContext, 'cwd' | 'version' | 'repository' | 'documentation'>;

type Level = 'error' | 'warning' | 'note';
const LEVEL: Record<Severity, Level> = { error: 'error', warning: 'warning', info: 'note' };

/** A SARIF `reportingDescriptor`, as far as we fill it. */
interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string; markdown: string };
  helpUri?: string;
  defaultConfiguration: { level: Level };
  properties: { tags: string[] };
}

/**
 * Renders a lint report as a SARIF 2.1.0 log.
 * @param report the lint report (its `diagnostics`)
 * @param options base folder and version
 * @returns the log as pretty-printed JSON with a final newline
 */
export function formatSarif(report: DiagnosticsReport, options: SarifFormatOptions): string {
  const cwd = options.cwd;
  const metadata = listRuleMetadata();
  for (const d of report.diagnostics) {
    if (!metadata.some((m) => m.id === d.code)) metadata.push(unknownCode(d));
  }
  const index = new Map(metadata.map((m, i) => [m.id, i]));
  const informationUri = options.repository ?? options.documentation;
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'dsh-mode',
            semanticVersion: options.version,
            // The repository when package.json names one, else the installed package's README: dsh-mode is not
            // in the npm registry, so a registry page would name someone else's package.
            ...(informationUri === undefined ? {} : { informationUri }),
            rules: metadata.map((m) => sarifRule(m, options.repository)),
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: folderUri(cwd) } },
        columnKind: 'utf16CodeUnits',
        results: report.diagnostics.map((d) => sarifResult(d, index.get(d.code)!, cwd)),
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

function sarifRule(m: RuleMetadata, repository: string | undefined): SarifRule {
  const full = `${capitalize(m.description)}. ${m.fix}`;
  const examples = m.examples
    ? `\n\nReported:\n\n\`\`\`yaml\n${m.examples.failing}\`\`\`\n\nFixed:\n\n\`\`\`yaml\n${m.examples.passing}\`\`\``
    : '';
  return {
    id: m.id,
    name: friendlyName(m.id),
    shortDescription: { text: capitalize(m.description) },
    fullDescription: { text: full },
    help: { text: m.fix, markdown: `**${m.id}**: ${m.description}.\n\n${m.fix}${examples}` },
    ...(repository === undefined ? {} : { helpUri: ruleHelpUri(m.id, repository) }),
    defaultConfiguration: { level: LEVEL[m.severity] },
    properties: { tags: m.blocksLoading ? ['policy', 'load'] : ['policy', 'lint'] },
  };
}

function sarifResult(d: Diagnostic, ruleIndex: number, cwd: string): Record<string, unknown> {
  const result: Record<string, unknown> = {
    ruleId: d.code,
    ruleIndex,
    level: LEVEL[d.severity],
    message: { text: d.help ? `${d.message}\nhelp: ${d.help}` : d.message },
  };
  if (d.file !== null) {
    const region = d.range
      ? {
          startLine: d.range.start.line,
          startColumn: d.range.start.column,
          endLine: d.range.end.line,
          endColumn: d.range.end.column,
        }
      : { startLine: 1 };
    result.locations = [{ physicalLocation: { artifactLocation: artifactLocation(d.file, cwd), region } }];
  }
  if (d.path.length > 0) result.properties = { path: d.path };
  return result;
}

/** Metadata for a code nobody registered, so the log stays self-consistent. */
function unknownCode(d: Diagnostic): RuleMetadata {
  return {
    id: d.code,
    description: `\`${d.code}\` finding`,
    fix: 'See the message.',
    severity: d.severity,
    blocksLoading: false,
  };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * SARIF wants `name` to differ from the opaque `id` (its validator compares them ignoring case), so the one-word
 * codes get a descriptive name.
 */
const ONE_WORD_NAMES: Readonly<Record<string, string>> = {
  io: 'UnreadablePolicyFile',
  override: 'OverrideReplacesMode',
  schema: 'SchemaViolation',
  syntax: 'SyntaxError',
};

function friendlyName(id: string): string {
  const name = ONE_WORD_NAMES[id] ?? pascalCase(id);
  return name.toLowerCase() === id.toLowerCase() ? `${name}Finding` : name;
}

function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(capitalize)
    .join('');
}
