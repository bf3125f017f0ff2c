/**
 * The session mode as ACP shows it, twice over: the legacy `modes` (`availableModes`, `currentModeId`,
 * `session/set_mode`, `current_mode_update`) and the config option `mode` (category `mode`, a select of the same
 * modes, `session/set_config_option`, `config_option_update`). Both views come from one place (`ctx.modes`), and
 * both setters go through {@link requestMode}, so a client that speaks either sees the same mode and gets the
 * same rules: any mode the deployment defines may be picked by the user (a user flip, landing at the next
 * boundary), an unknown one is invalid params. Clients that know config options (Zed) hide the legacy picker,
 * and the protocol's next version drops `set_mode`.
 * @module
 */
import * as acp from '@agentclientprotocol/sdk';
import type { ModesService } from '../../engine/service.js';
import type { LoopAgent } from '../../host/loop.js';

/** The id of the one config option this agent offers. */
export const MODE_CONFIG_ID = 'mode';

/**
 * The mode a client should be shown: a seeded or chosen mode that has not landed yet is what the session will run
 * in, as `set_mode` promised; the logged `mode/set` that lands it then changes nothing for the client.
 */
export function shownMode(modes: ModesService, agent: LoopAgent): string {
  const { current, pending } = modes.get(agent);
  return pending ?? current;
}

/** The legacy mode state of `session/new` and `session/load`. */
export function modeState(modes: ModesService, current: string): acp.SessionModeState {
  return {
    currentModeId: current,
    availableModes: modes
      .list()
      .map((m) => ({ id: m.name, name: m.name, description: m.description ?? null })),
  };
}

/** The config options (just `mode`) with `current` selected. */
export function configOptions(modes: ModesService, current: string): acp.SessionConfigOption[] {
  return [
    {
      id: MODE_CONFIG_ID,
      name: 'Mode',
      description: 'What the agent may do in this session.',
      category: 'mode',
      type: 'select',
      currentValue: current,
      options: modes.list().map((m) => ({ value: m.name, name: m.name, description: m.description ?? null })),
    },
  ];
}

/**
 * A user's mode choice, from `session/set_mode` or `session/set_config_option`: `ctx.modes.set()`, which records
 * the intent beside the journal before it returns (so a fresh agent process that loads the session runs its next
 * prompt in it).
 * @param modes the service, absent when the deployment has no mode plugin
 * @param agent the session's agent
 * @param mode the chosen mode
 * @param data what the error names as the offending parameter
 * @throws invalid params for an unknown mode (or no modes at all), internal error when the intent could not be
 *   recorded durably
 */
export function requestMode(
  modes: ModesService | undefined,
  agent: LoopAgent,
  mode: string,
  data: Record<string, unknown>,
): void {
  if (!modes) throw acp.RequestError.invalidParams(data, 'this deployment defines no modes');
  try {
    modes.set(agent, mode);
  } catch (error) {
    // An unknown mode is the client's mistake; an intent that could not be recorded durably is ours.
    const message = (error as Error).message;
    if ((error as Error).name === 'UnknownModeError') throw acp.RequestError.invalidParams(data, message);
    throw acp.RequestError.internalError(data, message);
  }
}

/**
 * The mode a `session/set_config_option` request asks for.
 * @throws invalid params for another option id or a value that is not a mode name
 */
export function requestedMode(params: acp.SetSessionConfigOptionRequest): string {
  if (params.configId !== MODE_CONFIG_ID) {
    throw acp.RequestError.invalidParams(
      { configId: params.configId },
      `unknown config option \`${String(params.configId)}\`; this agent has \`${MODE_CONFIG_ID}\``,
    );
  }
  const value: unknown = params.value;
  if ('type' in params && params.type === 'boolean') {
    throw acp.RequestError.invalidParams(
      { configId: params.configId, value: params.value },
      `\`${MODE_CONFIG_ID}\` is a select: its value is a mode name, not a boolean`,
    );
  }
  if (typeof value !== 'string') {
    throw acp.RequestError.invalidParams(
      { configId: params.configId },
      `the value of \`${MODE_CONFIG_ID}\` must be a mode name`,
    );
  }
  return value;
}
