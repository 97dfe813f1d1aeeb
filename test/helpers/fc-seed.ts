/**
 * The fast-check seed of this test process: FC_SEED when set (to rerun a failure), else a fresh one. Printed once,
 * so a failing property run can be repeated exactly with `FC_SEED=<seed> npx vitest run <file>`.
 */
export const fcSeed: number = process.env.FC_SEED ? Number(process.env.FC_SEED) : (Date.now() ^ (process.pid << 8)) | 0;
console.info(`fast-check seed ${fcSeed} (rerun with FC_SEED=${fcSeed})`);
