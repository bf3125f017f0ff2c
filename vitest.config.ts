import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real agent CLIs (test/agents/*.test.ts; the adapter's unit tests are in test/agents/unit/) run in their own step (`npm run test:agents`, vitest.agents.config.ts): they need an install.
    exclude: [...configDefaults.exclude, 'test/agents/*.test.ts'],
    // Builds dist/ once: the CLI tests run the real binary.
    globalSetup: ['test/global-setup.ts'],
    // One fixed fast-check seed for every property (test/seed.ts): the same cases on every run.
    setupFiles: ['test/seed.ts'],
    // Two workers even on two cores (vitest's default there is one): most test time is spent waiting on child
    // processes (the CLI, bash, git, npm), so a second worker overlaps that wait.
    maxWorkers: 2,
    // Timeouts catch hangs, never slowness: a test that takes 10 s alone can take several times that on a loaded
    // two-core machine. Property tests are bounded by their number of runs, not by time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // The types generated from schema/ (a freshness test guards them) and the generated validators' declarations.
      exclude: ['src/**/*.generated.ts', 'src/**/*.d.ts'],
      reporter: ['text-summary'],
      // The policy language is the part users trust most: hold it to a high bar, raised as it settles. The CLI's
      // commands run in process (test/cli/run-in-process.ts), so all of src/ counts; chat and acp run as the binary.
      thresholds: {
        'src/**/*.ts': { lines: 90 },
        'src/compile/**/*.ts': { lines: 90, branches: 90 },
      },
    },
  },
});
