/**
 * Contained dispatch: how the host calls plugin listeners when one plugin's bug must not break the host or the
 * other plugins. cordis' own `waterfall` and `emit` let a throwing listener break the emitting call,
 * so for the {@link CONTAINED_EVENTS} the host keeps the listener lists itself and wraps each call.
 *
 * The lists come from cordis's public registration hook: `ctx.on(name, …)` asks the `internal/listener` event
 * first, and a listener that answers takes the registration over (cordis itself keeps `internal/update` that
 * way). {@link containListeners} answers for the contained events on a context's root, once: from then on
 * `ctx.on('session/event', …)` stores the listener here, as an effect of the registering plugin's fiber (so
 * disposing the plugin removes it, and `fiber.getEffects()` lists it as `ctx.on("session/event")`), and
 * `prepend` puts it first, exactly as cordis would. Every host service installs it when it starts; a listener
 * registered before the first one started went to cordis's own list and is never called, so apply the host
 * before the plugins that listen to these events (a deployment installs it on its fresh context).
 * @module
 */
import type { Context, Events } from 'cordis';

/** The events whose listeners the host calls contained (a throwing listener is logged, never propagated). */
export const CONTAINED_EVENTS: readonly string[] = ['session/event', 'agent/created', 'tools/verdict'];

type Listener = (...args: unknown[]) => unknown;

/** The listener lists of the contained events, by event name, in dispatch order (prepended first). */
export type ContainedListeners = ReadonlyMap<string, readonly Listener[]>;

const byRoot = new WeakMap<Context, Map<string, Listener[]>>();

/**
 * Takes over the registration of the {@link CONTAINED_EVENTS} on `ctx`'s root (idempotent).
 * @param ctx any context of the app
 * @returns the lists the contained dispatch reads
 */
export function containListeners(ctx: Context): ContainedListeners {
  const root = ctx.root;
  let lists = byRoot.get(root);
  if (lists) return lists;
  const own = new Map<string, Listener[]>(CONTAINED_EVENTS.map((name) => [name, []]));
  lists = own;
  byRoot.set(root, own);
  root.on('internal/listener', function (this: Context, name: string, listener: unknown, options: unknown) {
    const list = own.get(name);
    if (!list || typeof listener !== 'function') return undefined;
    // cordis passes the options object here (its typings say a boolean).
    const prepend =
      typeof options === 'object' && options !== null
        ? 'prepend' in options && Boolean(options.prepend)
        : Boolean(options);
    const callback = listener as Listener;
    return this.effect(
      () => {
        if (prepend) list.unshift(callback);
        else list.push(callback);
        return () => {
          const at = list.indexOf(callback);
          if (at !== -1) list.splice(at, 1);
        };
      },
      `ctx.on(${JSON.stringify(name)})`,
    );
  });
  return lists;
}

/** The callbacks currently registered for `name`, snapshot in dispatch order. */
function listeners(lists: ContainedListeners, name: keyof Events): Listener[] {
  return [...(lists.get(name as string) ?? [])];
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

/**
 * Runs a `(…args, next) => Promise<void>` waterfall in which every listener is contained: a listener that throws
 * before calling `next` has the rest of the chain run for it; one that throws after is only logged. Resolves
 * after the innermost step and every listener have settled. Never rejects (unless `inner` does, with no
 * listener registered). `lists` may be passed pre-resolved: reaching the root costs about a microsecond.
 */
export async function containedWaterfall(
  ctx: Context,
  name: keyof Events,
  args: unknown[],
  inner: () => Promise<void>,
  lists: ContainedListeners = containListeners(ctx),
): Promise<void> {
  const chain = listeners(lists, name);
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
export function containedEmit(
  ctx: Context,
  name: keyof Events,
  args: unknown[],
  lists: ContainedListeners = containListeners(ctx),
): void {
  if ((lists.get(name as string)?.length ?? 0) === 0) return;
  for (const listener of listeners(lists, name)) {
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

/**
 * A check, resolved once per context, of whether a cordis event has any listener, so a hot path can skip an empty
 * waterfall (an empty cordis waterfall still costs a dispatch and its promise). It reads the listener table of
 * cordis's event service; should that table ever be missing, it answers true and the caller dispatches as before.
 * @param ctx any context of the app
 * @returns `(name) => boolean`
 */
export function listenerCheck(ctx: Context): (name: keyof Events) => boolean {
  const hooks = (ctx.events as unknown as { _hooks?: unknown })._hooks;
  if (typeof hooks !== 'object' || hooks === null) return () => true;
  const table = hooks as Record<string, { length: number } | undefined>;
  return (name) => (table[name as string]?.length ?? 0) > 0;
}
