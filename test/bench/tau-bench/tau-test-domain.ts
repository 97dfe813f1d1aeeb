import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTauDomain, tauDataDir, type TauDomain, type TauDomainName } from '../../../src/bench/tau-bench/index.js';
import { buildTauDomain } from '../../../src/bench/tau-bench/load-domain.js';
import { UPSTREAM_LAYOUT } from '../../../src/bench/tau-bench/upstream-files.js';

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

const fixtures = new URL('../../fixtures/tau-bench/', import.meta.url);
const readFixture = (p: string): string => readFileSync(new URL(p, fixtures), 'utf8');

/**
 * A domain over tau-env's synthetic fixtures (test/fixtures/tau-bench: databases and tasks of ours, with goldens
 * from the original Python env), with minimal get_info() literals for the tool schemas; runs everywhere, no data dir.
 */
export function syntheticDomain(name: TauDomainName): TauDomain {
  const layout = UPSTREAM_LAYOUT[name];
  return buildTauDomain(name, (path) => {
    const rel = path.slice(layout.root.length + 1);
    if (rel.startsWith('data/')) return readFixture(`${name}/${rel.slice(5)}`);
    if (rel === 'tasks_test.py') return readFixture(`${name}/tasks_synthetic.py`);
    if (rel === 'wiki.md') return '# synthetic wiki\n';
    if (rel === 'rules.py') return 'RULES = [\n    "one rule",  # a comment\n]\n';
    const tool = /^tools\/(\w+)\.py$/.exec(rel)?.[1];
    if (tool)
      return (
        `class X:\n    @staticmethod\n    def get_info():\n        return {"type": "function", ` +
        `"function": {"name": "${tool}", "description": "d", "parameters": {"type": "object", ` +
        `"properties": {}}}}\n`
      );
    throw new Error(`synthetic fixture has no ${path}`);
  });
}

/** The reward the original Python env gives each synthetic task's ground truth with its outputs answered (goldens.json). */
export function syntheticGroundTruthRewards(name: TauDomainName): number[] {
  const goldens = JSON.parse(readFixture('goldens.json')) as {
    tasks: Record<TauDomainName, Array<{ gt: { reward: number } }>>;
  };
  return goldens.tasks[name].map((t) => t.gt.reward);
}
