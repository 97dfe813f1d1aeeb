import type { TestProject } from 'vitest/node';

/**
 * One fast-check seed for the whole suite: FC_SEED when set (to rerun a failure), else a fresh one. Printed once, so
 * a failing property run can be repeated exactly with `FC_SEED=<seed> npx vitest run <file>`; every test file gets
 * it through `inject('fcSeed')` (test/helpers/fc-setup.ts makes it fast-check's global seed).
 */
export default function setup(project: TestProject): void {
  const given = process.env.FC_SEED;
  const seed = given !== undefined ? Number(given) : (Date.now() ^ (process.pid << 8)) | 0;
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, not ${JSON.stringify(given)}`);
  console.info(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`);
  project.provide('fcSeed', seed);
}

declare module 'vitest' {
  export interface ProvidedContext {
    fcSeed: number;
  }
}
