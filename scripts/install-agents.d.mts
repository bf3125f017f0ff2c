/** Types of install-agents.mjs for the agent test harness (test/agents/harness.ts). */

/** One pinned package from test/agents/versions.json; `bin` is null for a dependency that is not an agent. */
export interface Pin {
  package: string;
  version: string;
  bin: string | null;
}

export function agentsCache(env?: NodeJS.ProcessEnv): string;
export function pinnedAgents(): Record<string, Pin>;
export function agentPaths(pin: Pin, cache?: string): { prefix: string; bin: string | null; marker: string };
