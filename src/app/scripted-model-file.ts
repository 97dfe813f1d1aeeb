import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { ScriptReply } from '../models/scripted-model.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { ModelError, formatZodIssue } from '../core/index.js';
import { AppError } from './app-error.js';

const Reply = z.union([
  z.string(),
  z.strictObject({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    toolCalls: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          args: z.record(z.string(), z.unknown()).optional(),
          input: z.string().optional(),
          id: z.string().optional(),
        }),
      )
      .optional(),
    usage: z
      .strictObject({
        input: z.number().int().nonnegative().optional(),
        output: z.number().int().nonnegative().optional(),
        reasoning: z.number().int().nonnegative().optional(),
        cache: z
          .strictObject({
            read: z.number().int().nonnegative().optional(),
            write: z.number().int().nonnegative().optional(),
          })
          .optional(),
      })
      .optional(),
    cost: z.number().nonnegative().nullable().optional(),
    finishReason: z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']).optional(),
    delayMs: z.number().int().nonnegative().optional(),
    /** A model error to throw instead of replying (tests RECOVER offline). */
    error: z
      .strictObject({
        kind: z.enum([
          'transport',
          'unreachable',
          'rate_limit',
          'server',
          'timeout',
          'bad_request',
          'auth',
          'context_overflow',
        ]),
        message: z.string(),
      })
      .optional(),
  }),
]);

/** A `scripted:<file.json>` model file: an array of replies, or `{ replies, loop }`. */
export const ScriptFile = z.union([
  z.array(Reply),
  z.strictObject({ replies: z.array(Reply), loop: z.boolean().optional() }),
]);

/**
 * Builds a ScriptedModel from a JSON file of replies (strings, or `{ text, reasoning, toolCalls, usage,
 * cost, finishReason, delayMs, error }`), so the CLI runs offline. The model id is `scripted:<path>`.
 */
export async function scriptedModelFromFile(path: string, cwd: string): Promise<ScriptedModel> {
  const abs = resolve(cwd, path);
  const text = await readFile(abs, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new AppError(
      err.code === 'ENOENT'
        ? `scripted model file not found: ${path}`
        : `cannot read scripted model file ${path}: ${err.message}`,
    );
  });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new AppError(`scripted model file ${path} is not JSON: ${(err as Error).message}`);
  }
  const parsed = ScriptFile.safeParse(raw);
  if (!parsed.success) throw new AppError(`scripted model file ${path}: ${formatZodIssue(parsed.error.issues[0])}`);
  const file = Array.isArray(parsed.data) ? { replies: parsed.data, loop: false } : parsed.data;
  const replies: ScriptReply[] = file.replies.map((r) => {
    if (typeof r === 'string' || !r.error) return r as ScriptReply;
    const { error, ...rest } = r;
    return { ...rest, error: new ModelError(error.kind, error.message) };
  });
  return new ScriptedModel(replies, { id: `scripted:${path}`, loop: file.loop ?? false });
}
