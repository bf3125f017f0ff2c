/**
 * The plugin's configuration and its resolution (DESIGN.md section 4): `policies` (files or folders, relative to
 * the cordis.yml that names them) and `modes` (inline policy documents keyed by mode name).
 *
 * {@link resolveModeConfig} is usable outside cordis (the CLI and the deployment loader reuse it). It validates
 * with the same parser, schema and diagnostics as `dsh-mode lint`, loads the built-in `plan.yaml` first, then the
 * `policies` in order, then the inline `modes` in order, and compiles them together: documents of one mode
 * compose as a ceiling unless one says `override: true`. Any error (syntax, schema, hostile-input limits, an
 * unreadable path, a bad config shape) means no `value`: the plugin refuses to start rather than start
 * half-configured. Semantic findings (lint) never block (DESIGN.md section 2): they come back as warnings.
 *
 * Positions: the deployment loader passes `source` (`file`, `baseDir`, and `locate(path)` for JSON paths inside
 * this plugin's config, which it maps into cordis.yml), so findings in inline documents carry
 * cordis.yml:line:column. Without `source`, paths resolve from `process.cwd()` and inline findings carry JSON
 * paths (`['modes', 'review', 'tools', 'write']`) and no range.
 * @module
 */
import { isAbsolute, resolve } from 'node:path';
import { compilePolicies } from '../compile/compile.js';
import { hasErrors, makeDiagnostic, sortDiagnostics } from '../compile/diagnostics.js';
import { lintPolicies } from '../compile/lint.js';
import { loadPolicySources, type LoadResult } from '../compile/load.js';
import type { CompiledPolicy, Diagnostic, JsonPath, Range, SourceDocument } from '../compile/types.js';
import type { ModeConfig as GeneratedModeConfig } from '../compile/schema-types.generated.js';
import { validatePolicy } from '../compile/validate.js';
import { checkEnvelope, inlineDocument, sourceOf, type Fail } from './config-shape.js';
import { DEFAULT_MODE } from './vocabulary.js';

/** Where the config came from, so findings can point into it (set by the deployment loader). */
export interface ConfigSource {
  /** The config file as reported in diagnostics (cordis.yml). */
  file: string;
  /** The folder `policies` paths resolve from (the cordis.yml's folder). */
  baseDir: string;
  /** The range of the node at a JSON path inside this plugin's `config` (the loader adds its own prefix). */
  locate(path: JsonPath): Range | undefined;
  /** The range of the key at a JSON path (for unknown keys); falls back to `locate`. */
  keyRange?(path: JsonPath): Range | undefined;
}

/**
 * The plugin's config, as written under `config:` in cordis.yml (the type generated from
 * schema/mode-config.schema.json), plus the loader's `source`. At run time it is untrusted input and checked.
 */
export type ModeConfig = GeneratedModeConfig & {
  /** Set by the deployment loader, never written by people. */
  source?: ConfigSource;
};

/** One entry of the mode list. */
export interface ModeListEntry {
  name: string;
  description?: string;
}

/** The outcome of resolution: the compiled modes and the non-blocking findings. */
export interface ResolvedModes {
  /** The compiled policy of each configured mode, in load order (plan first). */
  readonly policies: ReadonlyMap<string, CompiledPolicy>;
  /** The compiled policy of a mode; undefined for `default` and for modes not configured. */
  get(mode: string): CompiledPolicy | undefined;
  /** `default` first, then the configured modes with their descriptions. */
  list(): ModeListEntry[];
  /** Every file loaded, in load order. */
  readonly files: readonly string[];
  /** Warnings and infos (lint findings); never errors. */
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link resolveModeConfig} returns: `value` only when no diagnostic is an error. */
export interface ResolveResult {
  value?: ResolvedModes;
  diagnostics: Diagnostic[];
}

/** The description `list()` gives the default mode. */
export const DEFAULT_MODE_DESCRIPTION = 'No mode: the full toolset, no policy.';

/**
 * Validates, loads and compiles the mode configuration.
 * @param config the plugin config (undefined or null count as `{}`)
 * @returns the resolved modes, or only diagnostics when anything blocks
 */
export async function resolveModeConfig(config: ModeConfig | null | undefined): Promise<ResolveResult> {
  const raw: unknown = config ?? {};
  const source = sourceOf(raw);
  const file = source?.file ?? null;
  const at = (path: JsonPath) => source?.locate(path);
  const keyAt = (path: JsonPath) => source?.keyRange?.(path) ?? at(path);
  const diagnostics: Diagnostic[] = [];
  const fail: Fail = (code, message, path, help) =>
    void diagnostics.push(makeDiagnostic(code, 'error', message, file, path, at(path), help));

  const { policies, inline } = checkEnvelope(raw, source !== undefined, fail);
  if (hasErrors(diagnostics)) return { diagnostics: sortDiagnostics(diagnostics) };

  const paths = policies.map((p) => (source && !isAbsolute(p) ? resolve(source.baseDir, p) : p));
  const load = await loadPolicySources(paths, { builtin: true });
  for (const d of load.diagnostics) diagnostics.push(d);
  const marks = new Map<string, string>();
  const lintDocuments: SourceDocument[] = [...load.documents];
  const documents: SourceDocument[] = [...load.documents];
  for (const [key, body] of inline) {
    const base: JsonPath = ['modes', key];
    if (body.mode !== undefined && body.mode !== key) {
      fail(
        'invalid-mode-name',
        `inline mode \`${key}\` says \`mode: ${String(body.mode)}\`: the key is the mode`,
        [...base, 'mode'],
        `drop \`mode:\` or make it \`${key}\``,
      );
      continue;
    }
    const parsed = inlineDocument(key, body, file, at, keyAt);
    const { document, diagnostics: found } = validatePolicy(parsed);
    for (const d of found) diagnostics.push({ ...d, path: [...base, ...d.path] });
    if (!document || hasErrors(found)) continue;
    const doc: SourceDocument = { file, document, locate: parsed.locate, keyRange: parsed.keyRange };
    documents.push(doc);
    // Lint reports by document file; a private marker lets its findings be mapped back to `modes.<key>`.
    const mark = `\u0000modes.${key}`;
    marks.set(mark, key);
    lintDocuments.push({ ...doc, file: mark });
  }
  if (hasErrors(diagnostics)) return { diagnostics: sortDiagnostics(diagnostics) };

  const compiled = compilePolicies(documents);
  const findings = lintFindings(
    { documents: lintDocuments, diagnostics: [], files: load.files },
    marks,
    file,
  );
  const all = sortDiagnostics([...diagnostics, ...findings]);
  return { value: resolved(compiled.modes, load.files, all), diagnostics: all };
}

/**
 * Renders diagnostics as `file:line:column: severity: message (code)` lines, for errors thrown at load.
 * @param diagnostics the findings
 * @returns one line per diagnostic
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const where = d.range
        ? `${d.file ?? '<config>'}:${d.range.start.line}:${d.range.start.column}`
        : (d.file ?? '<config>');
      const path = d.range || d.path.length === 0 ? '' : ` (at ${d.path.join('.')})`;
      return `${where}: ${d.severity}: ${d.message}${path} [${d.code}]`;
    })
    .join('\n');
}

function lintFindings(
  load: LoadResult,
  marks: ReadonlyMap<string, string>,
  file: string | null,
): Diagnostic[] {
  let findings: Diagnostic[];
  try {
    findings = lintPolicies(load);
  } catch {
    // Lint is advisory here: a lint bug must not keep a valid configuration from starting.
    return [];
  }
  return findings.map((d) => {
    const key = d.file === null ? undefined : marks.get(d.file);
    // INVARIANT: lint findings never block the plugin (DESIGN.md section 2), so they are at most warnings here.
    const severity = d.severity === 'error' ? 'warning' : d.severity;
    return key === undefined ? { ...d, severity } : { ...d, severity, file, path: ['modes', key, ...d.path] };
  });
}

function resolved(
  policies: ReadonlyMap<string, CompiledPolicy>,
  files: readonly string[],
  diagnostics: readonly Diagnostic[],
): ResolvedModes {
  const list: ModeListEntry[] = [{ name: DEFAULT_MODE, description: DEFAULT_MODE_DESCRIPTION }];
  for (const [name, policy] of policies) {
    list.push(policy.description === undefined ? { name } : { name, description: policy.description });
  }
  return {
    policies,
    get: (mode) => (mode === DEFAULT_MODE ? undefined : policies.get(mode)),
    list: () => list.map((entry) => ({ ...entry })),
    files,
    diagnostics,
  };
}
