/**
 * tau-bench's domain layer (sierra-research/tau-bench at 59a200c): the airline and retail databases, tasks, wiki,
 * rules and tool schemas read from an installed copy of the upstream files (`qitos tau-bench fetch`), the tools
 * re-written in TypeScript with Python-exact values, and a copy-on-write session with the original's hash and
 * reward. See docs/tau-bench-exactness.md.
 */
export type { TauDomain, TauDomainName, TauTask, TauAction, TauSession, TauCallResult, TauReward, TauToolInfo } from './types.js';
export { loadTauDomain, type LoadTauDomainOptions } from './load-domain.js';
export { installTauData, tauDataDir, type InstallTauDataOptions, type InstallTauDataResult } from './install.js';
export { PyFloat, PyException, toPlain, fromPlain, type PyValue, type PyDict } from './py/py-value.js';
export { pyJsonParse, pyJsonDumps } from './py/py-json.js';
