/**
 * `ctx.approval`: the approval seam. `request(req)` runs the `approval/request` waterfall; its innermost step
 * answers `unavailable`, so a deployment without an answerer fails closed. A throwing answerer or a malformed
 * answer also yields `unavailable`; an abort of the request's signal while waiting yields `cancelled`. An approval
 * may carry the approver's revision of the call's `arguments` (an edited plan): it is kept as a JSON copy, so the
 * answerer cannot change it after answering; one that cannot be copied as JSON makes the answer `unavailable`.
 * A rejection may carry one too (a plan edited, then sent back): copied the same way, or dropped when it cannot
 * be, since a rejection runs nothing.
 * @module
 */
import { Service, type Context } from 'cordis';
import { warn } from './contain.js';
import type { ApprovalOutcome, ApprovalRequest, ApprovalSeam } from './types.js';

declare module 'cordis' {
  interface Context {
    approval: ApprovalService;
  }
  interface Events {
    /** Answers an approval question; call `next()` to pass it on (innermost: unavailable). */
    'approval/request'(
      request: ApprovalRequest,
      next: () => Promise<ApprovalOutcome>,
    ): Promise<ApprovalOutcome>;
  }
}

const OUTCOMES = new Set(['allowed-once', 'rejected', 'cancelled', 'unavailable']);

/** The `ctx.approval` service. */
export class ApprovalService extends Service implements ApprovalSeam {
  constructor(ctx: Context) {
    super(ctx, 'approval');
  }

  /** Asks whoever answers; never rejects. */
  async request(request: ApprovalRequest): Promise<ApprovalOutcome> {
    const { signal } = request;
    if (signal?.aborted) return { outcome: 'cancelled' };
    // Listening for the abort before asking: an answerer may abort synchronously.
    let onAbort = (): void => {};
    const aborted = new Promise<ApprovalOutcome>((resolve) => {
      onAbort = () => resolve({ outcome: 'cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const asked = (async (): Promise<ApprovalOutcome> => {
      try {
        const answer = await this.ctx.waterfall('approval/request', request, async () => ({
          outcome: 'unavailable' as const,
        }));
        return normalize(answer);
      } catch (error) {
        warn(this.ctx, `an approval/request listener failed; answering unavailable`, error);
        return { outcome: 'unavailable' };
      }
    })();
    try {
      return await Promise.race(signal ? [asked, aborted] : [asked]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

function normalize(answer: unknown): ApprovalOutcome {
  const outcome = (answer as { outcome?: unknown } | null)?.outcome;
  if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) return { outcome: 'unavailable' };
  if (outcome === 'rejected') {
    const feedback = (answer as { feedback?: unknown }).feedback;
    const said = typeof feedback === 'string' && feedback !== '' ? { feedback } : {};
    // A revision that cannot be copied is dropped: nothing runs on a rejection, so it still stands.
    const revised = Object.hasOwn(answer as object, 'arguments')
      ? jsonCopy((answer as { arguments?: unknown }).arguments)
      : undefined;
    return revised === undefined ? { outcome, ...said } : { outcome, ...said, arguments: revised };
  }
  if (outcome === 'allowed-once' && Object.hasOwn(answer as object, 'arguments')) {
    const revised = jsonCopy((answer as { arguments?: unknown }).arguments);
    return revised === undefined ? { outcome: 'unavailable' } : { outcome, arguments: revised };
  }
  return { outcome } as ApprovalOutcome;
}

/** A JSON copy of a value, or undefined when it has none (a cycle, a BigInt, undefined, a function). */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
