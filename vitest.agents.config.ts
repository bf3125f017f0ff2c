import { defineConfig } from 'vitest/config';

// `npm run test:agents`: the real agent CLIs against the fake model server (test/agents/, issue 28). Not part of
// `npm test`: they need `node scripts/install-agents.mjs` first (about 1.1 GB in the cache) and take minutes.
export default defineConfig({
  test: {
    include: ['test/agents/*.test.ts'],
    // One agent at a time: each starts a large binary and its own helpers, and two cores are shared.
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 60_000,
  },
});
