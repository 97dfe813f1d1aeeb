import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadTauDomain, tauDataDir, type TauDomain, type TauDomainName } from '../../../src/kit/tau-bench/index.js';

/** Why tests that need the upstream data skip when it is not installed (one line, naming the command). */
export const NO_DATA = `tau-bench data not installed in ${tauDataDir()}: run \`npx qitos tau-bench fetch\` to run these tests`;

/** True when the upstream data is installed where loadTauDomain looks by default. */
export function tauDataInstalledHere(): boolean {
  return existsSync(join(tauDataDir(), 'manifest.json'));
}

const cache = new Map<string, Promise<TauDomain>>();

/** A domain from the installed data, loaded once per test file. */
export function testDomain(name: TauDomainName): Promise<TauDomain> {
  let d = cache.get(name);
  if (!d) cache.set(name, (d = loadTauDomain(name)));
  return d;
}
