/** Process sandboxing: bubblewrap argument builder and detection, and a capped process runner. */
export { bwrapArgs, findBwrap, type BwrapOptions } from './bwrap.js';
export { runCapped, type CappedRun } from './run-capped.js';
