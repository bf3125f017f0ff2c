// `npm run build`:
//   1. the schemas' ajv validators, generated beside the modules that import them (scripts/gen-validators.mjs),
//   2. `tsc -p tsconfig.build.json`: dist/, the library entry points (`dsh-mode/compile`, `/engine`, …),
//   3. the generated validators copied into dist/ beside their modules (tsc copies no JavaScript),
//   4. the CLI bundled (esbuild) into dist/bundle/, which bin/dsh-mode.mjs runs: `cli.js` and the chunks that the
//      commands' lazy imports were split into, so a cold command loads a few files, each of what it runs, instead
//      of some two hundred modules (or one module holding every command's dependencies); and the agents' files in
//      dist/bundle/agents/: `hook.cjs` (run by `dsh-mode hook AGENT` through bin/dsh-mode-hook.cjs), `policies.mjs` (its long
//      way to the policies) and `opencode.js` (imported by OpenCode's plugin).
// `--keep-going` (the test setup's): type errors are reported and the build goes on, since tsc still emits.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeValidators } from './gen-validators.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The bundle's folder; its entry is `cli.js`. */
export const BUNDLE = join(root, 'dist/bundle');

// CommonJS dependencies (yaml's Node build, ajv) call require() for Node's modules: an ES module bundle defines it.
const ESM_REQUIRE = {
  js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);",
};

/** What the agents' bundles share. */
const AGENT_BUNDLE = {
  // Minified: a hook process compiles this code before every tool call, and V8's cost grows with the text. Names
  // are not kept (that would be a call per function at load, ~1 ms of a hook process): what the agents' code
  // reports is an error's message, never its stack, and none of it reads a function's or class's name.
  minify: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // ESM builds first: jsonc-parser's `main` is a UMD module whose requires a bundler cannot follow.
  mainFields: ['module', 'main'],
};

/** Steps 1–3; returns false when tsc reported errors (it still emits). */
export function compile() {
  const generated = writeValidators();
  let typed = true;
  try {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      },
    );
  } catch (error) {
    process.stderr.write(String(error.stdout ?? '') + String(error.stderr ?? ''));
    typed = false;
  }
  for (const rel of generated) copyFileSync(join(root, rel), join(root, rel.replace(/^src\//, 'dist/')));
  return typed;
}

/** Step 4: bin/dsh-mode.mjs's program, from the modules tsc built: `cli.js` and its chunks. */
export async function bundle() {
  rmSync(BUNDLE, { recursive: true, force: true });
  await build({
    stdin: {
      contents:
        "import { main } from './dist/cli/main.js';\nprocess.exitCode = await main(process.argv.slice(2));\n",
      resolveDir: root,
      sourcefile: 'cli-entry.mjs',
      loader: 'js',
    },
    outdir: BUNDLE,
    entryNames: 'cli',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // ESM builds first: jsonc-parser's `main` is a UMD module whose requires a bundler cannot follow.
    mainFields: ['module', 'main'],
    banner: ESM_REQUIRE,
    plugins: [moduleUrls],
    logLevel: 'warning',
  });
  // `opencode.js`, the engine OpenCode's plugin imports: the decision, with reading policies the long way a chunk
  // of its own, loaded only when the kept record is stale.
  await build({
    entryPoints: {
      opencode: join(root, 'dist/agents/opencode-plugin.js'),
    },
    outdir: join(BUNDLE, 'agents'),
    splitting: true,
    ...AGENT_BUNDLE,
    format: 'esm',
    banner: ESM_REQUIRE,
    plugins: [agentUrls, pureModules],
    logLevel: 'warning',
  });
  // The hook process's own file, `hook.cjs`: what `dsh-mode hook AGENT` runs before every tool call of an agent,
  // the decision and nothing else, as one CommonJS script, which bin/dsh-mode-hook.cjs compiles with V8's code cache (Node
  // 20 has none for ES modules). Reading policies the long way
  // stays an ES module of its own (`policies.mjs`), imported only when the kept record is stale.
  await build({
    entryPoints: [join(root, 'dist/agents/hook-main.js')],
    outfile: join(BUNDLE, 'agents', 'hook.cjs'),
    ...AGENT_BUNDLE,
    format: 'cjs',
    plugins: [scriptUrls, policiesApart, pureModules],
    logLevel: 'warning',
  });
  await build({
    entryPoints: [join(root, 'dist/agents/policies.js')],
    outfile: join(BUNDLE, 'agents', 'policies.mjs'),
    ...AGENT_BUNDLE,
    format: 'esm',
    banner: ESM_REQUIRE,
    plugins: [agentUrls],
    logLevel: 'warning',
  });
}

/**
 * `hook.cjs` reads policies the long way through `policies.mjs` beside it, imported by the loader (bin/dsh-mode-hook.cjs):
 * a script compiled from V8's code cache has no `import()` of its own, so the loader passes it one.
 */
const policiesApart = {
  name: 'policies-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/policies\.js$/ }, (args) =>
      args.importer.startsWith(join(root, 'dist/agents'))
        ? { path: 'policies', namespace: 'apart' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'apart' }, () => ({
      contents:
        'export async function readDeployment(workspace) { return (await __importPolicies()).readDeployment(workspace); }',
      loader: 'js',
    }));
  },
};

/** {@link moduleUrls} for `hook.cjs`, a script: its URL comes from `__filename`. */
const scriptUrls = {
  name: 'script-urls',
  setup(b) {
    b.onLoad({ filter: /\.m?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const from = relative(join(BUNDLE, 'agents'), args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(from.startsWith('.') ? from : `./${from}`)}, require('node:url').pathToFileURL(__filename)).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

/**
 * The agents' bundle treats dsh-mode's own modules as free of side effects (none has any on import), so a module
 * whose exports the hook does not use is left out whole, with its dependencies: compile's index re-exports the
 * YAML parser and the validators, which the hook loads only when it reads policies the long way.
 */
const pureModules = {
  name: 'pure-modules',
  setup(b) {
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData?.pure || !args.importer.startsWith(join(root, 'dist'))) return undefined;
      const found = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { pure: true },
      });
      if (found.errors.length > 0 || !found.path.startsWith(join(root, 'dist'))) return undefined;
      // The entries themselves run on import.
      return { ...found, sideEffects: found.path.endsWith('-entry.js') };
    });
  },
};

/** {@link moduleUrls} for the agents' bundle, one folder down. */
const agentUrls = {
  name: 'agent-urls',
  setup(b) {
    b.onLoad({ filter: /\.m?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const from = relative(join(BUNDLE, 'agents'), args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(from.startsWith('.') ? from : `./${from}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

/**
 * Each bundled module keeps its own `import.meta.url`: the URL of the file it was bundled from, relative to the
 * bundle's folder (every chunk is in it). Modules find package files by URL (`policies/plan.yaml`, `schema/`,
 * `package.json`), and the bundle sits elsewhere than they do.
 */
const moduleUrls = {
  name: 'module-urls',
  setup(b) {
    b.onLoad({ filter: /\.m?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const from = relative(BUNDLE, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(from.startsWith('.') ? from : `./${from}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const typed = compile();
  if (!typed && !process.argv.includes('--keep-going')) process.exit(1);
  await bundle();
}
