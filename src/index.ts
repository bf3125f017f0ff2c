/**
 * dsh-mode: a declarative policy engine for AI coding-agent session modes.
 *
 * Re-exports the public surface of each layer; see the README of each folder under `src/`.
 * @module
 */
export {};
