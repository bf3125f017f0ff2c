import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once: the CLI tests run the real binary.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary'],
      // The policy language is the part users trust most: hold it to a high bar, raised as it settles.
      thresholds: {
        'src/compile/**/*.ts': { lines: 90, branches: 90 },
      },
    },
  },
});
