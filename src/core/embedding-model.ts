import { z } from 'zod';

/** What an embedding model says about itself; recorded with an index so vectors of two models never mix. */
export const EmbeddingModelInfo = z.object({
  /** `kind:model` plus whatever changes the vectors (e.g. `hashing:v1-256`, `openai:text-embedding-3-small`). */
  id: z.string().min(1),
  /** Length of every vector, when known before the first call. */
  dimensions: z.number().int().positive().optional(),
});
export type EmbeddingModelInfo = z.infer<typeof EmbeddingModelInfo>;

/** The vectors of one `embed` call: one non-empty array of finite numbers per text, all of one length. */
export const Embeddings = z.array(z.array(z.number({ error: 'must be a finite number' })).min(1, 'must not be empty'));
export type Embeddings = z.infer<typeof Embeddings>;

/** Options of one `embed` call. */
export interface EmbedOptions {
  signal?: AbortSignal;
}

/**
 * Turns texts into vectors, for skill retrieval and vector memory. `embed(texts)` returns one vector per text, in
 * order, all of the same length; two texts that mean the same should get vectors with a high cosine similarity.
 * Implementations: a deterministic hashing embedder (no model), transformers.js from a local folder, and any
 * OpenAI-compatible `/v1/embeddings` endpoint.
 */
export interface EmbeddingModel {
  /** Stable id of the model and every setting that changes its vectors. */
  readonly id: string;
  /** Vector length, when known before the first call. */
  readonly dimensions?: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

/**
 * Checks what an embedding model returned for `count` texts: the right number of vectors, finite numbers, one
 * length (and `dimensions` when the model declares it). Throws an error naming the model and the problem, so a
 * misbehaving endpoint never puts a broken vector into an index.
 */
export function checkEmbeddings(model: Pick<EmbeddingModel, 'id' | 'dimensions'>, count: number, vectors: unknown): number[][] {
  const parsed = Embeddings.safeParse(vectors);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`embedding model ${model.id} returned invalid vectors: ${i.path.length ? `[${i.path.join('][')}] ` : ''}${i.message}`);
  }
  const out = parsed.data;
  if (out.length !== count) throw new Error(`embedding model ${model.id} returned ${out.length} vectors for ${count} texts`);
  const dim = model.dimensions ?? out[0]?.length;
  const bad = out.findIndex((v) => v.length !== dim);
  if (bad >= 0) throw new Error(`embedding model ${model.id} returned a vector of length ${out[bad].length} for text ${bad + 1}; expected ${dim}`);
  return out;
}
