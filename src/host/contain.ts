/**
 * Contained dispatch: how the host calls plugin listeners when one plugin's bug must not break the host or the
 * other plugins. cordis' own `waterfall` and `emit` let a throwing listener break the emitting call (STACK.md),
 * so for `session/event` and `agent/created` the host walks the listener list itself and wraps each call.
 * @module
 */
import type { Context, Events } from 'cordis';

/** Where contained errors go: the context's logger (visible once an exporter is registered). */
export function warn(ctx: Context, message: string, error?: unknown): void {
  const detail = error === undefined ? '' : `: ${describeError(error)}`;
  ctx.logger('host').warn(`${message}${detail}`);
}

/** The message of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

type Listener = (...args: unknown[]) => unknown;

/** The callbacks currently registered for `name`, snapshot in dispatch order (prepended first). */
function listeners(events: Context['events'], name: keyof Events): Listener[] {
  const hooks = events._hooks[name as string] ?? [];
  return hooks.map((hook) => hook.callback as Listener);
}

/**
 * Runs a `(…args, next) => Promise<void>` waterfall in which every listener is contained: a listener that throws
 * before calling `next` has the rest of the chain run for it; one that throws after is only logged. Resolves
 * after the innermost step and every listener have settled. Never rejects (unless `inner` does, with no
 * listener registered). `events` may be passed pre-resolved: `ctx.events` costs microseconds per access.
 */
export async function containedWaterfall(
  ctx: Context,
  name: keyof Events,
  args: unknown[],
  inner: () => Promise<void>,
  events: Context['events'] = ctx.events,
): Promise<void> {
  const chain = listeners(events, name);
  if (chain.length === 0) return inner();
  const dispatch = async (index: number): Promise<void> => {
    if (index >= chain.length) {
      try {
        await inner();
      } catch (error) {
        warn(ctx, `the innermost ${String(name)} step failed`, error);
      }
      return;
    }
    let called: Promise<void> | undefined;
    const next = (): Promise<void> => {
      if (called) throw new Error('next() called multiple times');
      called = dispatch(index + 1);
      return called;
    };
    try {
      await chain[index]!(...args, next);
    } catch (error) {
      warn(ctx, `a ${String(name)} listener failed (contained)`, error);
    }
    // A listener that never called next (or threw first) must not cut the others off.
    await (called ?? next());
  };
  await dispatch(0);
}

/** Emits to every listener of `name`, containing and logging each listener's error. */
export function containedEmit(ctx: Context, name: keyof Events, args: unknown[]): void {
  for (const listener of listeners(ctx.events, name)) {
    try {
      const result = listener(...args);
      if (result instanceof Promise)
        result.catch((error) => warn(ctx, `a ${String(name)} listener failed`, error));
    } catch (error) {
      warn(ctx, `a ${String(name)} listener failed (contained)`, error);
    }
  }
}

/**
 * `ctx.waterfall`, typed the same, through `ctx.events` directly: the `ctx.waterfall` mixin accessor costs tens
 * of microseconds per call, paid on every step. Listener errors propagate (callers decide how to fail).
 */
export function waterfall<K extends keyof Events>(
  ctx: Context,
  name: K,
  ...args: Parameters<Events[K]>
): ReturnType<Events[K]> {
  return ctx.events.waterfall(name, ...args) as ReturnType<Events[K]>;
}
