/**
 * `dsh-mode/engine/plugin`: the mode engine as a cordis plugin module (`name`, `inject`, `apply`, and the plugin
 * object as the default export), with its configuration type and the `ctx.modes` service it provides.
 *
 * Its declarations import cordis's, so a TypeScript consumer needs cordis's types to check: they resolve with
 * `moduleResolution: "bundler"`, but not under `node16`/`nodenext` (cordis's `.d.ts` omits file extensions)
 * unless `skipLibCheck` is on. `dsh-mode/engine` has no such requirement.
 *
 * The plugin injects `ctx.tools` and `ctx.systemPrompt`: it runs in a context where the reference host is
 * loaded, as the `mode` entry of a `cordis.yml` that `dsh-mode chat` or `dsh-mode acp` starts.
 * @module
 */
export { apply, inject, ModeConfigError, ModePlugin, ModePlugin as default, name } from './plugin.js';
export type { ModeConfig, ModeListEntry } from '../deploy/modes.js';
export {
  UnknownModeError,
  type ModeInfo,
  type ModesService,
  type ModeState,
  type ModeSubject,
} from './service.js';
