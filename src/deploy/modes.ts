/**
 * The mode plugin's configuration and its resolution: `policies` (files or folders, relative to the cordis.yml
 * that names them) and `modes` (inline policy documents keyed by mode name).
 *
 * {@link resolveModeConfig} validates the config against mode-config.schema.json (precompiled), with the same
 * parser, validator and diagnostics as `dsh-mode lint`, loads the built-in `plan.yaml` first, then the `policies`
 * in order, then the inline `modes` in order, and compiles them together: documents of one mode compose as a
 * ceiling unless one says `override: true`. Any error (syntax, schema, hostile-input limits, an unreadable path)
 * means no `value`: the plugin refuses to start rather than start half-configured. Semantic findings (lint) never
 * block: they come back as warnings.
 *
 * Positions: the deployment loader passes a {@link ConfigSource} (the cordis.yml, its folder, and the ranges of
 * the config's nodes in it), so every inline document has a real source and its findings carry
 * cordis.yml:line:column. Without one, `policies` paths resolve from the current folder and inline findings carry
 * JSON paths and no range.
 * @module
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import {
  compilePolicies,
  DEFAULT_MODE,
  hasErrors,
  lintPolicies,
  loadPolicySources,
  makeDiagnostic,
  schemaDiagnostics,
  sortDiagnostics,
  validatePolicy,
  type LintOptions,
  type ModeConfig,
} from '../compile/index.js';
import type { CompiledPolicy, Diagnostic, JsonPath, Range, SourceDocument } from '../compile/types.js';
import { validateModeConfig } from './config-validators.generated.js';

export type { ModeConfig };

/** Where a mode config was written, so findings point into it. */
export interface ConfigSource {
  /** The file as reported in diagnostics (cordis.yml). */
  file: string;
  /** The folder `policies` paths resolve from (the cordis.yml's folder). */
  baseDir: string;
  /** The range of the node at a JSON path inside the config. */
  locate(path: JsonPath): Range | undefined;
  /** The range of the key at a JSON path (for unknown keys); falls back to `locate`. */
  keyRange?(path: JsonPath): Range | undefined;
}

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
  /** Loading warnings and lint findings at lint's severity (an `error` finding among them): none blocked the start. */
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link resolveModeConfig} returns: `value` only when no diagnostic is an error. */
export interface ResolveResult {
  value?: ResolvedModes;
  diagnostics: Diagnostic[];
}

/** Resolution with lint's findings as lint reports them (`dsh-mode lint` of a deployment). */
export interface LintedModes {
  /** Loading errors and warnings (syntax, schema, I/O). */
  diagnostics: Diagnostic[];
  /** Lint's findings and failing inline tests, severities as reported. */
  findings: Diagnostic[];
  /** Every policy file considered. */
  files: string[];
  value?: ResolvedModes;
}

/** The description `list()` gives the default mode. */
export const DEFAULT_MODE_DESCRIPTION = 'No mode: the full toolset, no policy.';

/**
 * Validates, loads and compiles the mode configuration.
 * @param config the plugin config (undefined or null count as `{}`)
 * @param source where the config was written, for positions and relative paths
 * @param options the tool catalog the modes decide calls without hints with (default: the built-in tools)
 * @returns the resolved modes, or only diagnostics when anything blocks
 */
export async function resolveModeConfig(
  config: ModeConfig | null | undefined,
  source?: ConfigSource,
  options: Pick<LintOptions, 'catalog'> = {},
): Promise<ResolveResult> {
  const linted = await lintModeConfig(config, source, options);
  // INVARIANT: lint findings never block the plugin, so they are at most warnings here.
  const findings = linted.findings.map((d) =>
    d.severity === 'error' ? { ...d, severity: 'warning' as const } : d,
  );
  const all = sortDiagnostics([...linted.diagnostics, ...findings]);
  if (!linted.value) return { diagnostics: all };
  // The modes keep lint's own severities, so the plugin logs a finding as `lint` reports it (never blocking).
  const logged = sortDiagnostics([...linted.diagnostics, ...linted.findings]);
  return { value: resolved(linted.value.policies, linted.files, logged), diagnostics: all };
}

/**
 * Like {@link resolveModeConfig}, keeping lint's own severities apart from the loading diagnostics.
 * @param config the plugin config
 * @param source where the config was written
 * @param options lint's options (a tool catalog, which the compiled modes decide calls without hints with)
 */
export async function lintModeConfig(
  config: ModeConfig | null | undefined,
  source?: ConfigSource,
  options: Pick<LintOptions, 'catalog'> = {},
): Promise<LintedModes> {
  const raw: unknown = config ?? {};
  const file = source?.file ?? null;
  const at = (path: JsonPath) => source?.locate(path);
  const keyAt = (path: JsonPath) => source?.keyRange?.(path) ?? at(path);
  const diagnostics: Diagnostic[] = [];
  if (!validateModeConfig(raw)) {
    const target = { file, data: raw, locate: at, keyRange: keyAt };
    for (const d of schemaDiagnostics(validateModeConfig.errors ?? [], target)) diagnostics.push(d);
    return { diagnostics: sortDiagnostics(diagnostics), findings: [], files: [] };
  }
  const valid = raw as ModeConfig;
  const paths = (valid.policies ?? []).map((p) =>
    source && !isAbsolute(p) ? resolve(source.baseDir, p) : p,
  );
  const load = await loadPolicySources(paths, { builtin: true });
  for (const d of load.diagnostics) diagnostics.push(source ? atPolicyEntry(d, paths, valid, source) : d);
  const documents: SourceDocument[] = [...load.documents];
  for (const [key, body] of Object.entries(valid.modes ?? {})) {
    const base: JsonPath = ['modes', key];
    if (body.mode !== undefined && body.mode !== key) {
      const path = [...base, 'mode'];
      diagnostics.push(
        makeDiagnostic(
          'invalid-mode-name',
          'error',
          `inline mode \`${key}\` says \`mode: ${String(body.mode)}\`: the key is the mode`,
          file,
          path,
          at(path),
          `drop \`mode:\` or make it \`${key}\``,
        ),
      );
      continue;
    }
    const locate = (path: JsonPath) => at([...base, ...path]);
    const keyRange = (path: JsonPath) => keyAt([...base, ...path]);
    const data = { mode: key, ...body };
    const { document, diagnostics: found } = validatePolicy({
      file,
      text: '',
      data,
      diagnostics: [],
      locate,
      keyRange,
    });
    for (const d of found) diagnostics.push({ ...d, path: [...base, ...d.path] });
    if (document && !hasErrors(found)) documents.push({ file, document, locate, keyRange });
  }
  if (hasErrors(diagnostics)) {
    return { diagnostics: sortDiagnostics(diagnostics), findings: [], files: load.files };
  }
  const compiled = compilePolicies(documents, options.catalog ? { tools: options.catalog } : {});
  let findings: Diagnostic[];
  try {
    findings = lintPolicies({ documents, diagnostics: [] }, options);
  } catch {
    // Lint is advisory here: a lint bug must not keep a valid configuration from starting.
    findings = [];
  }
  return {
    diagnostics: sortDiagnostics(diagnostics),
    findings: sortDiagnostics(findings),
    files: load.files,
    value: resolved(compiled.modes, load.files, []),
  };
}

/**
 * A `policies` entry that cannot be read is the config's mistake: reported at the entry in cordis.yml, as written
 * there, rather than at a file that may not exist. Problems inside a file that was read keep the file's position.
 */
function atPolicyEntry(
  d: Diagnostic,
  paths: readonly string[],
  config: ModeConfig,
  source: ConfigSource,
): Diagnostic {
  const index = d.code === 'io' ? paths.indexOf(d.file ?? '') : -1;
  if (index === -1) return d;
  const written = config.policies?.[index] ?? d.file;
  const path: JsonPath = ['policies', index];
  const message = existsSync(paths[index]!)
    ? `policy file \`${written}\`: ${d.message}`
    : `policy file \`${written}\` does not exist`;
  const help = `\`policies\` paths resolve from the folder of ${basename(source.file)} (${source.baseDir})`;
  const range = source.locate(path);
  return makeDiagnostic('io', 'error', message, source.file, path, range, help);
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
