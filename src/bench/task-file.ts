import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { zodIssueField, zodIssueMessage } from '../core/index.js';
import { BenchTask } from './bench-task.js';

/** Formats a tasks JSONL file may be in: qitos's own (BenchTask per line) or GAIA's question/answer lines. */
export const TaskFormat = z.enum(['qitos', 'gaia']);
export type TaskFormat = z.infer<typeof TaskFormat>;

/** A GAIA metadata line (the fields we use; anything else is kept in the task's metadata). */
const GaiaLine = z.looseObject({
  task_id: z.string().min(1),
  Question: z.string().min(1),
  'Final answer': z.union([z.string(), z.number()]).optional(),
  Level: z.union([z.number(), z.string()]).optional(),
  file_name: z.string().optional(),
});

/** Converts one GAIA line to a BenchTask; an attached file is resolved next to the tasks file. */
export function gaiaToTask(line: z.infer<typeof GaiaLine>, baseDir: string): BenchTask {
  const { task_id, Question, 'Final answer': answer, Level, file_name, ...rest } = line;
  return {
    id: task_id,
    objective: Question,
    inputs: {},
    resources: file_name ? { file: resolve(baseDir, file_name) } : {},
    budget: {},
    successCriteria: [],
    metadata: { ...(Level !== undefined ? { level: Level } : {}), ...(file_name ? { file_name } : {}), ...rest },
    ...(answer !== undefined ? { expected: String(answer) } : {}),
  };
}

/** Parses tasks JSONL text. Errors name the file, the line and the field; duplicate ids name both lines. */
export function parseTasks(text: string, options: { file: string; format?: TaskFormat }): BenchTask[] {
  const format = options.format ?? 'qitos';
  const baseDir = dirname(options.file);
  const tasks: BenchTask[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const where = `${options.file} line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: not JSON (${(err as Error).message})`);
    }
    let task: BenchTask;
    if (format === 'gaia') {
      const g = GaiaLine.safeParse(raw);
      if (!g.success) throw new Error(`${where}: ${issueText(g.error)}`);
      task = gaiaToTask(g.data, baseDir);
    } else {
      const t = BenchTask.safeParse(raw);
      if (!t.success) throw new Error(`${where}: ${issueText(t.error)}`);
      task = t.data;
    }
    const first = seen.get(task.id);
    if (first !== undefined)
      throw new Error(`${options.file}: duplicate task id "${task.id}" on line ${i + 1} (first on line ${first})`);
    seen.set(task.id, i + 1);
    tasks.push(task);
  }
  if (tasks.length === 0) throw new Error(`${options.file}: no tasks`);
  return tasks;
}

/** Reads a tasks JSONL file (see `parseTasks`). */
export async function readTaskFile(file: string, format: TaskFormat = 'qitos'): Promise<BenchTask[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read tasks file ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  return parseTasks(text, { file, format });
}

/** The first zod issue as `field "a.b": message`, or `unknown field "a.b"` for a key the schema does not know. */
export function issueText(error: z.ZodError): string {
  const i = error.issues[0];
  const field = zodIssueField(i);
  if (i.code === 'unrecognized_keys') return `unknown field "${field}"`;
  return `field "${field || '(line)'}": ${zodIssueMessage(i)}`;
}
