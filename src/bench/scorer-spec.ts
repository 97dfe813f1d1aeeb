import { z } from 'zod';
import { resolve, relative, isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Model } from '../core/index.js';
import type { Scorer } from './scorer.js';
import { TextNormalization } from './scorers/normalize-text.js';
import { exactMatch } from './scorers/exact-match.js';
import { contains } from './scorers/contains.js';
import { regex } from './scorers/regex.js';
import { numeric } from './scorers/numeric.js';
import { jsonField } from './scorers/json-field.js';
import { jsonMatch } from './scorers/json-match.js';
import { exprScorer } from './scorers/expr-scorer.js';
import { custom } from './scorers/custom.js';
import { llmJudge } from './scorers/llm-judge.js';
import { gaiaMatch } from './scorers/gaia-match.js';

/** A scorer as written in suite.yaml: a name (`exact_match`, short for `{ type: exact_match }`) or an object with `type` and options. */
export const ScorerSpec = z.preprocess(
  (v) => (typeof v === 'string' ? { type: v } : v),
  z.discriminatedUnion(
    'type',
    [
      TextNormalization.extend({ type: z.literal('exact_match') }).strict(),
      TextNormalization.extend({ type: z.literal('contains') }).strict(),
      z
        .object({
          type: z.literal('regex'),
          pattern: z.string().optional(),
          flags: z
            .string()
            .regex(/^[dgimsuyv]*$/, 'regex flags are letters of dgimsuyv')
            .optional(),
          fullMatch: z.boolean().optional(),
        })
        .strict(),
      z
        .object({
          type: z.literal('numeric'),
          tolerance: z.number().nonnegative().optional(),
          relTolerance: z.number().nonnegative().optional(),
        })
        .strict(),
      z
        .object({
          type: z.literal('json_field'),
          path: z.string().min(1),
          expectedPath: z.string().optional(),
          tolerance: z.number().nonnegative().optional(),
        })
        .strict(),
      z
        .object({
          type: z.literal('json_match'),
          mode: z.enum(['exact', 'subset']).optional(),
          tolerance: z.number().nonnegative().optional(),
        })
        .strict(),
      z
        .object({ type: z.literal('expr'), expr: z.string().min(1), threshold: z.number().min(0).max(1).optional() })
        .strict()
        .superRefine((v, ctx) => {
          // Parsed here, so a syntax error or an unknown name is reported with the suite file's line.
          try {
            exprScorer(v);
          } catch (err) {
            ctx.addIssue({ code: 'custom', path: ['expr'], message: (err as Error).message });
          }
        }),
      z
        .object({ type: z.literal('custom'), module: z.string().min(1), export: z.string().default('default') })
        .strict(),
      z
        .object({
          type: z.literal('llm_judge'),
          model: z.string().min(1),
          prompt: z.string().optional(),
          rubric: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
          threshold: z.number().min(0).max(1).optional(),
        })
        .strict(),
      z.object({ type: z.literal('gaia') }).strict(),
    ],
    {
      error: (iss) =>
        iss.code === 'invalid_union'
          ? 'unknown scorer type: expected one of exact_match, contains, regex, numeric, json_field, ' +
            'json_match, expr, custom, llm_judge, gaia'
          : undefined,
    },
  ),
);
export type ScorerSpec = z.infer<typeof ScorerSpec>;

/** What building a scorer from a spec may need: the suite folder (custom modules) and a model factory (judge). */
export interface ScorerContext {
  /** Folder that custom scorer modules are resolved against (and must stay inside). */
  dir: string;
  /** Turns `provider:model` into a Model; needed only by `llm_judge`. */
  createModel?: (spec: string) => Model | Promise<Model>;
  /** Imports a custom scorer module by absolute path (default: node's `import`). */
  importModule?: ImportModule;
}

/** Imports a module by absolute path and returns its exports. */
export type ImportModule = (absPath: string) => Promise<Record<string, unknown>>;

/** node's own `import` of a file. */
export const importWithNode: ImportModule = async (absPath) =>
  (await import(pathToFileURL(absPath).href)) as Record<string, unknown>;

/** Builds the Scorer a spec describes. Errors name what is wrong (a missing module, a missing export). */
export async function buildScorer(spec: ScorerSpec, ctx: ScorerContext): Promise<Scorer> {
  const s = spec;
  switch (s.type) {
    case 'exact_match':
      return exactMatch(strip(s));
    case 'contains':
      return contains(strip(s));
    case 'regex':
      return regex(strip(s));
    case 'numeric':
      return numeric(strip(s));
    case 'json_field':
      return jsonField(strip(s) as { path: string });
    case 'json_match':
      return jsonMatch(strip(s));
    case 'expr':
      return exprScorer(strip(s) as { expr: string });
    case 'gaia':
      return gaiaMatch();
    case 'llm_judge': {
      const j = s as Extract<ScorerSpec, { type: 'llm_judge' }>;
      if (!ctx.createModel)
        throw new Error(`scorer llm_judge needs a model factory to build "${j.model}" (pass createModel to loadSuite)`);
      return llmJudge(await ctx.createModel(j.model), { prompt: j.prompt, rubric: j.rubric, threshold: j.threshold });
    }
    case 'custom': {
      const c = s as Extract<ScorerSpec, { type: 'custom' }>;
      return loadCustomScorer(c.module, c.export, ctx.dir, ctx.importModule ?? importWithNode);
    }
  }
  throw new Error(`unknown scorer type ${JSON.stringify((s as { type: unknown }).type)}`);
}

function strip<T extends { type: string }>(s: T): Omit<T, 'type'> {
  const { type: _type, ...rest } = s;
  return rest;
}

/** Imports a custom scorer module from inside the suite folder; its export is a Scorer or a scoring function. */
async function loadCustomScorer(
  module: string,
  exportName: string,
  dir: string,
  importModule: ImportModule,
): Promise<Scorer> {
  const file = resolve(dir, module);
  const rel = relative(dir, file);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new Error(`custom scorer module ${module} is outside the suite folder ${dir}`);
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file);
  } catch (err) {
    throw new Error(`cannot load custom scorer module ${file}: ${(err as Error).message}`, { cause: err });
  }
  const value = mod[exportName];
  if (value && typeof value === 'object' && typeof (value as Scorer).score === 'function') return value as Scorer;
  if (typeof value === 'function')
    return custom(value as Parameters<typeof custom>[0], (value as { name?: string }).name || `custom:${module}`);
  const exported = Object.keys(mod).join(', ') || 'nothing';
  throw new Error(
    `custom scorer module ${file} has no export "${exportName}" that is a scorer or a function (it exports: ${exported})`,
  );
}
