import { z } from 'zod';
import { Task } from '../core/index.js';

/**
 * A benchmark task: a kernel Task plus the `expected` answer a scorer compares with (any JSON: a string, a
 * number, a list of accepted answers, an object of expected files...). Unknown fields are rejected so that a
 * typo (`expcted`) is an error, not a silently unscored task.
 */
export const BenchTask = Task.extend({ expected: z.unknown().optional() }).strict();
export type BenchTask = z.infer<typeof BenchTask>;
export type BenchTaskInput = z.input<typeof BenchTask>;
