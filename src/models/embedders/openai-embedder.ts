import type OpenAI from 'openai';
import type { EmbeddingModel } from '../../core/index.js';
import { checkEmbeddings } from '../../core/index.js';
import { classifyProviderError } from '../classify-provider-error.js';
import { callWithRetry } from '../retry.js';
import { attemptLimits, checkProviderOptions, type ProviderOptions } from '../provider-options.js';

/** Options of an OpenAI-compatible embedder. */
export interface OpenAIEmbedderOptions extends Pick<ProviderOptions, 'timeoutMs' | 'maxRetries' | 'retry' | 'headers'> {
  /** Model id sent to the server, e.g. `text-embedding-3-small`, `nomic-embed-text`, `bge-m3`. */
  model: string;
  /** Server root including the version path, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string;
  /** Sent as the bearer token; local servers that need none accept any value. */
  apiKey: string;
  /** Ask the server for vectors of this length (models that support shortening, e.g. text-embedding-3-*). */
  dimensions?: number;
  /** Texts per request (default 64): long lists are sent in batches of this size. */
  batchSize?: number;
}

/**
 * An embedder behind any server that speaks OpenAI's `POST /v1/embeddings` (OpenAI, Ollama, vLLM, LM Studio,
 * text-embeddings-inference, DashScope, Zhipu), through the `openai` SDK, with the same retries, timeouts and
 * error classification as the chat models. Vectors are requested as floats (servers that only know the
 * float encoding work too) and checked before use. The SDK loads on the first call.
 */
export function openAIEmbedder(options: OpenAIEmbedderOptions): EmbeddingModel {
  const id = `openai-compatible:${options.model}@${options.baseURL}${options.dimensions ? `#${options.dimensions}` : ''}`;
  checkProviderOptions(`embedder ${id}`, options);
  if (!options.model) throw new Error('openAIEmbedder: give the model name, e.g. { model: "text-embedding-3-small" }');
  const batchSize = options.batchSize ?? 64;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new Error(`openAIEmbedder: batchSize must be a positive integer, got ${batchSize}`);
  let sdk: Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> | undefined;
  const load = () =>
    (sdk ??= import('openai').then(({ default: OpenAI }) => ({
      OpenAI,
      client: new OpenAI({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        maxRetries: 0,
        timeout: attemptLimits(options).timeoutMs + 60_000,
        ...(options.headers ? { defaultHeaders: options.headers } : {}),
      }),
    })));
  const model: EmbeddingModel = {
    id,
    ...(options.dimensions ? { dimensions: options.dimensions } : {}),
    async embed(texts, opts = {}) {
      const { OpenAI, client } = await load();
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        const res = await callWithRetry(
          (ctx) =>
            client.embeddings.create(
              {
                model: options.model,
                input: batch,
                encoding_format: 'float',
                ...(options.dimensions ? { dimensions: options.dimensions } : {}),
              },
              { signal: ctx.signal },
            ),
          { ...attemptLimits(options), signal: opts.signal, classify: (err) => classifyProviderError(err, id, OpenAI) },
        );
        // Servers may answer out of order: `index` says which input a vector belongs to.
        const data = Array.isArray(res?.data)
          ? [...res.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
          : res?.data;
        out.push(...checkEmbeddings(model, batch.length, Array.isArray(data) ? data.map((d) => d?.embedding) : data));
      }
      return checkEmbeddings(model, texts.length, out);
    },
  };
  return model;
}
