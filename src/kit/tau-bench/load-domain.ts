import type { TauDomain, TauDomainName } from './types.js';

export interface LoadTauDomainOptions {
  /** The data dir holding the installed upstream files (default: see `tauDataDir`). */
  dataDir?: string;
}

/** Loads a domain from the installed upstream files. */
export async function loadTauDomain(name: TauDomainName, opts: LoadTauDomainOptions = {}): Promise<TauDomain> {
  throw new Error(`tau-bench: loadTauDomain(${name}, ${JSON.stringify(opts)}) is not implemented yet`);
}
