#!/usr/bin/env node
// `node scripts/install-agents.mjs [AGENT...] [--json]`: installs the agent CLIs the adapter tests drive
// (test/agents/versions.json), each from the npm registry into its own prefix in a cache folder outside the
// project's node_modules, so the project's lockfile and `npm ci` never carry four large binaries.
//
//   cache folder: $DSH_AGENTS_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/dsh-mode/agents
//   one prefix:   <cache>/<package with / as +>@<version>/node_modules/.bin/<bin>
//
// A pin with `bin: null` is a dependency the harness copies (OpenCode's plugin package), not an agent.
// An agent whose prefix holds a finished install (the `.installed` marker, written last) is skipped, so a CI
// machine that keeps the cache installs each version once. Prints `AGENT BINARY` per line, or with --json the
// map `{ agent: { package, version, bin, prefix } }` (bin null for a dependency) that test/agents/harness.ts reads. Reaches only the
// registry npm is configured with; nothing else.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const versionsFile = join(root, 'test', 'agents', 'versions.json');

/** The cache folder: DSH_AGENTS_CACHE, else the XDG cache home's dsh-mode/agents. */
export function agentsCache(env = process.env) {
  if (env.DSH_AGENTS_CACHE) return env.DSH_AGENTS_CACHE;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'dsh-mode', 'agents');
}

/** The pinned agents: `{ agent: { package, version, bin } }`. */
export function pinnedAgents() {
  const data = JSON.parse(readFileSync(versionsFile, 'utf8'));
  return Object.fromEntries(Object.entries(data).filter(([k]) => !k.startsWith('$')));
}

/** Where one pinned agent lives: its prefix, binary and finished-install marker. */
export function agentPaths(pin, cache = agentsCache()) {
  const prefix = join(cache, `${pin.package.replace('/', '+')}@${pin.version}`);
  return {
    prefix,
    bin: pin.bin ? join(prefix, 'node_modules', '.bin', pin.bin) : null,
    marker: join(prefix, '.installed'),
  };
}

function install(name, pin, cache) {
  const paths = agentPaths(pin, cache);
  const complete = () => existsSync(paths.marker) && (paths.bin === null || existsSync(paths.bin));
  if (complete()) return { ...paths, installed: false };
  // A prefix without its marker is an install that stopped half-way: start it again from nothing.
  rmSync(paths.prefix, { recursive: true, force: true });
  mkdirSync(paths.prefix, { recursive: true });
  writeFileSync(join(paths.prefix, 'package.json'), JSON.stringify({ private: true }) + '\n');
  process.stderr.write(`install-agents: ${name}: npm install ${pin.package}@${pin.version}\n`);
  const r = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      paths.prefix,
      '--no-audit',
      '--no-fund',
      '--save-exact',
      `${pin.package}@${pin.version}`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0 || (paths.bin !== null && !existsSync(paths.bin))) {
    throw new Error(
      `install-agents: ${name}: npm install ${pin.package}@${pin.version} failed (exit ${r.status})`,
    );
  }
  writeFileSync(paths.marker, `${pin.package}@${pin.version}\n`);
  return { ...paths, installed: true };
}

function main(argv) {
  const json = argv.includes('--json');
  const pins = pinnedAgents();
  const wanted = argv.filter((a) => !a.startsWith('--'));
  for (const w of wanted) {
    if (!(w in pins))
      throw new Error(`install-agents: unknown agent "${w}" (known: ${Object.keys(pins).join(', ')})`);
  }
  const cache = agentsCache();
  const out = {};
  for (const [name, pin] of Object.entries(pins)) {
    if (wanted.length && !wanted.includes(name)) continue;
    const r = install(name, pin, cache);
    out[name] = { package: pin.package, version: pin.version, bin: r.bin, prefix: r.prefix };
    if (!json) process.stdout.write(`${name} ${r.bin ?? r.prefix}${r.installed ? '' : ' (cached)'}\n`);
  }
  if (json) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
