import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { EmbeddingModel } from '../../core/index.js';
import { checkEmbeddings, errorMessage } from '../../core/index.js';

/** Options of the transformers.js embedder. */
export interface TransformersEmbedderOptions {
  /**
   * A local model folder in the transformers.js layout: `config.json`, `tokenizer.json`, `tokenizer_config.json`
   * and `onnx/model.onnx` (or `onnx/model_<dtype>.onnx`), e.g. a copy of `Xenova/all-MiniLM-L6-v2`.
   */
  modelPath: string;
  /** Weights variant (default `fp32`, i.e. `onnx/model.onnx`; `q8` reads `onnx/model_quantized.onnx`). */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';
  /** How token vectors become one sentence vector (default `mean`, what sentence-transformers models expect). */
  pooling?: 'mean' | 'cls';
  /** L2-normalise the vectors (default true). */
  normalize?: boolean;
  /** Texts per forward pass (default 32). */
  batchSize?: number;
}

const WEIGHT_FILES: Record<NonNullable<TransformersEmbedderOptions['dtype']>, string> = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  int8: 'model_int8.onnx',
  uint8: 'model_uint8.onnx',
  q4: 'model_q4.onnx',
  bnb4: 'model_bnb4.onnx',
  q4f16: 'model_q4f16.onnx',
};

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean' | 'cls'; normalize: boolean },
) => Promise<{ tolist(): unknown }>;

/**
 * An embedder that runs a sentence-embedding model in-process with transformers.js
 * (`@huggingface/transformers`, the maintained successor of `@xenova/transformers`), through its
 * `pipeline('feature-extraction')`, from a local folder only: nothing is downloaded at run time, and a missing
 * folder or file is an error that says what to put where. The package is an optional dependency, imported on
 * the first `embed` call (importing qitos-ts never loads it or its native ONNX runtime).
 */
export function transformersEmbedder(options: TransformersEmbedderOptions): EmbeddingModel {
  const dir = resolve(options.modelPath);
  const dtype = options.dtype ?? 'fp32';
  const pooling = options.pooling ?? 'mean';
  const normalize = options.normalize ?? true;
  const batchSize = options.batchSize ?? 32;
  if (!WEIGHT_FILES[dtype])
    throw new Error(
      `transformersEmbedder: unknown dtype "${dtype}"; use one of ${Object.keys(WEIGHT_FILES).join(', ')}`,
    );
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new Error(`transformersEmbedder: batchSize must be a positive integer, got ${batchSize}`);
  let extractor: Promise<FeatureExtractor> | undefined;
  const model: EmbeddingModel = {
    id: `transformers:${dir}:${dtype}:${pooling}${normalize ? '' : ':raw'}`,
    async embed(texts) {
      const run = await (extractor ??= load(dir, dtype).catch((err: unknown) => {
        extractor = undefined; // a fixed folder works on the next call
        throw err;
      }));
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const tensor = await run(texts.slice(i, i + batchSize), { pooling, normalize });
        out.push(...(tensor.tolist() as number[][]));
      }
      return checkEmbeddings(model, texts.length, out);
    },
  };
  return model;
}

/** Checks the folder, imports transformers.js and builds the pipeline from local files only. */
async function load(dir: string, dtype: NonNullable<TransformersEmbedderOptions['dtype']>): Promise<FeatureExtractor> {
  const needed = ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', WEIGHT_FILES[dtype])];
  const missing: string[] = [];
  for (const f of needed) if (!(await stat(join(dir, f)).catch(() => undefined))?.isFile()) missing.push(f);
  if (missing.length) {
    throw new Error(
      `transformers embedder: the model folder ${dir} lacks ${missing.join(', ')}. Place a transformers.js model there ` +
        `(a folder with ${needed.join(', ')}, e.g. a copy of the Xenova/all-MiniLM-L6-v2 repository); nothing is downloaded at run time.`,
    );
  }
  let lib: typeof import('@huggingface/transformers');
  try {
    lib = await import('@huggingface/transformers');
  } catch (err) {
    throw new Error(
      `transformers embedder: the optional package @huggingface/transformers is not installed (${errorMessage(err)}). ` +
        'Install it with `npm install @huggingface/transformers` (offline machines: set ' +
        'ONNXRUNTIME_NODE_INSTALL=skip, the CPU runtime is in the package).',
      { cause: err },
    );
  }
  try {
    // An absolute folder is not a hub id, so transformers.js reads it as a path; local_files_only forbids any download.
    const pipe = await lib.pipeline('feature-extraction', dir, { local_files_only: true, dtype, device: 'cpu' });
    return (texts, opts) => pipe(texts, opts) as Promise<{ tolist(): unknown }>;
  } catch (err) {
    throw new Error(`transformers embedder: cannot load the model in ${dir}: ${errorMessage(err)}`, { cause: err });
  }
}
