import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { qitos, tempDir } from '../helpers/cli-harness.js';

const REPO = resolve(__dirname, '../..');
const BIN = join(REPO, 'bin/qitos.js');
const ARITH = join(REPO, 'benchmarks/arithmetic');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-shards-')));
afterEach(() => cleanup());

const taskIds = (out: string) =>
  readFileSync(join(dir, out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { taskId: string }).taskId);

/** `qitos bench run <suite> --shard auto` as its own process, with a scheduler's variables in its environment. */
function shardProcess(env: Record<string, string>, out: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'bench', 'run', ARITH, '--shard', 'auto', '-o', out, '--no-progress'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res) => child.on('close', (code) => res({ code, stderr })));
}

describe('qitos bench run --shard auto, one process per shard, then bench merge', () => {
  it("Kubernetes Indexed Job, Slurm array and QITOS_SHARD shards merge into exactly the unsharded run's tasks", async () => {
    const full = await qitos(['bench', 'run', ARITH, '-o', 'full', '--no-progress'], dir);
    expect(full.code, full.err).toBe(0);
    const all = taskIds('full').sort();
    expect(all.length).toBeGreaterThan(10);

    const schemes: Record<string, Array<Record<string, string>>> = {
      // Kubernetes sets JOB_COMPLETION_INDEX; the manifest passes the Job's completions as QITOS_SHARD_COUNT.
      k8s: [0, 1, 2].map((i) => ({ JOB_COMPLETION_INDEX: String(i), QITOS_SHARD_COUNT: '3' })),
      // sbatch --array=1-2
      slurm: [1, 2].map((i) => ({
        SLURM_ARRAY_JOB_ID: '77',
        SLURM_ARRAY_TASK_ID: String(i),
        SLURM_ARRAY_TASK_COUNT: '2',
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '2',
      })),
      // any other scheduler: a CI matrix, a shell loop
      env: [0, 1, 2, 3].map((i) => ({ QITOS_SHARD: `${i}/4` })),
    };
    const runs = Object.entries(schemes).flatMap(([name, envs]) =>
      envs.map((env, i) => ({
        name,
        i,
        n: envs.length,
        out: `${name}/shard-${i}`,
        run: shardProcess(env, `${name}/shard-${i}`),
      })),
    );
    for (const r of runs) {
      const { code, stderr } = await r.run;
      expect(code, `${r.out}: ${stderr}`).toBe(0);
      expect(stderr, r.out).toMatch(new RegExp(`^shard ${r.i}/${r.n} from `, 'm'));
    }

    for (const [name, envs] of Object.entries(schemes)) {
      const shards = envs.map((_, i) => `${name}/shard-${i}`);
      const perShard = shards.map((s) => taskIds(s));
      // every shard ran some of the tasks, and no task ran twice (within a shard or across two)
      expect(
        perShard.every((ids) => ids.length > 0),
        name,
      ).toBe(true);
      expect(perShard.flat().length, name).toBe(new Set(perShard.flat()).size);
      const merged = await qitos(['bench', 'merge', ...shards, '-o', `${name}/merged`], dir);
      expect(merged.code, merged.err).toBe(0);
      const ids = taskIds(`${name}/merged`);
      expect(ids.length, name).toBe(new Set(ids).size);
      expect([...ids].sort(), name).toEqual(all);
    }
  }, 240_000);

  it('--shard auto without a scheduler in the environment is one line, exit 2', async () => {
    const r = await qitos(['bench', 'run', ARITH, '--shard', 'auto', '-o', 'x'], dir, {});
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /^qitos: --shard auto: no shard in the environment: set QITOS_SHARD=i\/n, or run as a Kubernetes Indexed Job \(JOB_COMPLETION_INDEX with QITOS_SHARD_COUNT\) or a Slurm job array \(SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT\)\n$/,
    );
  });
});
