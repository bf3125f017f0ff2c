/**
 * Log-level checks of the promise, shared by the fuzz, crash and load tests: read a session log after the fact
 * and list every place it was broken.
 */
import { EXIT_PLAN_MODE, foldMode } from '../../src/engine/index.js';
import type { SessionEvent } from '../../src/host/index.js';

/** A user flip request: the log length when it was asked for, and its target. */
export interface UserFlip {
  at: number;
  target: string;
}

/**
 * Every `mode/set` that leaves plan must be either a user flip to that mode requested since the previous landing,
 * or (to default) an `exit_plan_mode` of that span whose `approval/decided allowed-once` came before its result.
 * @returns one message per violation (empty when the log keeps the promise)
 */
export function unapprovedExits(events: readonly SessionEvent[], flips: readonly UserFlip[] = []): string[] {
  const problems: string[] = [];
  const decided = new Map<string, SessionEvent>();
  for (const e of events) {
    if (e.type === 'approval/decided') decided.set((e.data as { callId: string }).callId, e);
  }
  let previous = 0;
  events.forEach((e, i) => {
    if (e.type !== 'mode/set') return;
    const from = foldMode(events, i);
    const to = (e.data as { mode: unknown }).mode;
    if (from === 'plan' && to !== 'plan') {
      const byUser = flips.some((f) => f.at >= previous && f.at <= i && f.target === to);
      const byExit =
        to === 'default' &&
        events.slice(previous, i).some((x) => {
          if (x.type !== 'tool/result') return false;
          const r = x.data as { name: string; isError: boolean; callId: string };
          if (r.name !== EXIT_PLAN_MODE || r.isError) return false;
          const d = decided.get(r.callId);
          return (
            d !== undefined && d.seq < x.seq && (d.data as { outcome: string }).outcome === 'allowed-once'
          );
        });
      if (!byUser && !byExit) problems.push(`mode/set ${String(to)} at seq ${e.seq} leaves plan unapproved`);
    }
    previous = i;
  });
  // A successful exit_plan_mode always had its allowed-once first.
  for (const e of events) {
    if (e.type !== 'tool/result') continue;
    const r = e.data as { name: string; isError: boolean; callId: string };
    if (r.name !== EXIT_PLAN_MODE || r.isError) continue;
    const d = decided.get(r.callId);
    if (!d || d.seq > e.seq || (d.data as { outcome: string }).outcome !== 'allowed-once') {
      problems.push(`exit_plan_mode ${r.callId} succeeded without an allowed-once before it`);
    }
  }
  return problems;
}
