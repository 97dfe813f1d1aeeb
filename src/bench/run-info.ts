import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { issueText } from './task-file.js';

/** `run.json`: what a bench run folder was run for (suite, shard, epochs, tasks). `merge` and `--resume` read it. */
export const RunInfo = z.object({
  schema: z.literal('qitos.bench.run'),
  version: z.literal(1),
  suite: z.string(),
  suiteDir: z.string().nullable(),
  epochs: z.number().int().positive(),
  shard: z.string().nullable(),
  /** Tasks of this run (its shard). */
  taskIds: z.array(z.string()),
  /** Every task of the suite, so `merge` can tell a shard that was never given. */
  suiteTaskIds: z.array(z.string()),
  model: z.string().nullable(),
  agent: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** For a merged run: the shard folders it joins. */
  mergedFrom: z.array(z.string()).optional(),
  /**
   * The effective settings the run was started with (the CLI: agent module path, export and sha-256, model,
   * engine, policies, agent options, env, MCP servers). `--resume` refuses a folder whose settings differ from the
   * current ones. Absent in folders written before it was recorded.
   */
  config: z.record(z.string(), z.unknown()).optional(),
  /** Resumes that went ahead with other settings (`--force-resume`): when, and what differed. */
  forcedResumes: z
    .array(
      z.object({
        at: z.string(),
        differences: z.array(z.object({ path: z.string(), from: z.unknown(), to: z.unknown() })),
      }),
    )
    .optional(),
});
export type RunInfo = z.infer<typeof RunInfo>;

/** Reads `<dir>/run.json`, or undefined when there is none. */
export function readRunInfo(dir: string): RunInfo | undefined {
  const file = join(dir, 'run.json');
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not JSON (${(err as Error).message})`);
  }
  const r = RunInfo.safeParse(raw);
  if (!r.success) throw new Error(`${file}: ${issueText(r.error)}`);
  return r.data;
}

/** Writes a JSON file atomically (temp file + rename), so a reader never sees half of it. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  renameSync(tmp, file);
}
