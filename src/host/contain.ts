/**
 * Contained events: the three events whose listeners are plugins' observers, where one plugin's bug must not break
 * the host or the other plugins. cordis lets a throwing listener break the emitting call, so:
 *
 * - `agent/created` and `tools/verdict` are emitted with cordis's `ctx.parallel`, which runs every listener
 *   (each one's synchronous part in registration order, before `parallel` returns) and collects the failures;
 *   {@link emitContained} logs them.
 * - `session/event` is a waterfall `(session, event, next)`. {@link containListeners} wraps each of its listeners
 *   as it is registered (cordis's `internal/listener` hook) and registers the wrapper in its place under a private
 *   event name, so cordis keeps the list, the order (`prepend`), the plugin's effect and its disposal, and
 *   {@link sessionEventWaterfall} dispatches with cordis's own `waterfall`. The wrapper logs a listener's throw and
 *   runs the rest of the chain for a listener that threw first or never called `next()`.
 *
 * The other waterfalls (`tools/pre-execute`, `system-prompt/assemble`, `approval/request`) are plain cordis: the
 * host calls `ctx.waterfall` and decides how to fail closed when a listener throws.
 * @module
 */
import type { Context, Events } from 'cordis';

/** What a `session/event` listener is. */
type SessionEventListener = (session: unknown, event: unknown, next: () => Promise<void>) => unknown;

/**
 * The name the wrapped `session/event` listeners are registered under in cordis: no one else can emit it. A
 * plugin's effects list each one as `ctx.on(Symbol(session/event))`.
 */
const SESSION_EVENT = Symbol('session/event');

const installed = new WeakSet<Context>();

/**
 * Installs the `session/event` wrapping on `ctx`'s root (idempotent). Every host service calls it when it
 * starts; a `session/event` listener registered on the root before that went to cordis's own list, where the host
 * never looks, so it is reported.
 * @param ctx any context of the app
 */
export function containListeners(ctx: Context): void {
  const root = ctx.root;
  if (installed.has(root)) return;
  installed.add(root);
  if ((root.events._hooks['session/event']?.length ?? 0) > 0)
    warn(root, 'a session/event listener was registered before the host started; it is never called');
  root.on(
    'internal/listener',
    function (this: Context, name: string, listener: unknown, options: unknown) {
      if (name !== 'session/event') return undefined;
      if (typeof listener !== 'function')
        throw new TypeError('ctx.on("session/event"): the listener must be a function');
      return this.on(SESSION_EVENT, contained(this, listener as SessionEventListener), options as never);
    },
    // Global: cordis would otherwise skip the hook for a context with a filter, whose listener would then never run.
    { global: true },
  );
}

/**
 * A `session/event` listener whose failure is logged: a listener that throws before calling `next()`, or never
 * calls it, has the rest of the chain run for it; `next()` runs the rest once (a second call gets the same
 * promise, so a listener's late call from a timer is not an uncaught throw).
 */
function contained(ctx: Context, listener: SessionEventListener): SessionEventListener {
  return async (session, event, next) => {
    let rest: Promise<void> | undefined;
    const once = (): Promise<void> => (rest ??= next());
    try {
      await listener(session, event, once);
    } catch (error) {
      warn(ctx, 'a session/event listener failed (contained)', error);
    }
    await (rest ?? once());
  };
}

/**
 * Runs the `session/event` waterfall for one appended event; resolves once every listener has settled and never
 * rejects (each listener is contained).
 */
export async function sessionEventWaterfall(ctx: Context, session: unknown, event: unknown): Promise<void> {
  await ctx.waterfall(SESSION_EVENT, session, event, async () => {});
}

/**
 * Emits `agent/created` or `tools/verdict` to every listener; a listener's throw or rejection is logged, never
 * propagated, and does not keep the others from running.
 */
export function emitContained<K extends 'agent/created' | 'tools/verdict'>(
  ctx: Context,
  name: K,
  ...args: Parameters<Events[K]>
): void {
  ctx.parallel(name, ...args).catch((failure: unknown) => {
    const errors = failure instanceof AggregateError ? failure.errors : [failure];
    for (const error of errors) warn(ctx, `a ${name} listener failed (contained)`, error);
  });
}

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
