import type { SuiteProvider } from '../bench/index.js';
import { tauBenchSuites } from '../bench/tau-bench/tau-suite-provider.js';

/**
 * The benchmarks `qitos bench run` and `bench sweep` know by name, a new list each call (no registry). Adding a
 * benchmark is a provider in src/bench and a line here; the CLI reads names and options from the providers.
 */
export function suiteProviders(): SuiteProvider[] {
  return [tauBenchSuites()];
}
