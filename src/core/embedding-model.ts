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
  /** Stable id of the model and every setting that changes its vectors: vectors of two ids never mix in an index. */
  readonly id: string;
  /** Vector length, when known before the first call. */
  readonly dimensions?: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

/**
 * Checks what an embedding model returned for `count` texts: an array of `count` non-empty vectors of finite
 * numbers, all of one length (`dimensions` when the model declares it). Throws an error naming the model and the
 * problem, so a misbehaving endpoint never puts a broken vector into an index. A plain loop, not a schema: an
 * index build checks millions of numbers.
 */
export function checkEmbeddings(
  model: Pick<EmbeddingModel, 'id' | 'dimensions'>,
  count: number,
  vectors: unknown,
): number[][] {
  const fail = (what: string) => new Error(`embedding model ${model.id} returned invalid vectors: ${what}`);
  if (!Array.isArray(vectors))
    throw fail(`expected an array of vectors, got ${vectors === null ? 'null' : typeof vectors}`);
  if (vectors.length !== count)
    throw new Error(`embedding model ${model.id} returned ${vectors.length} vectors for ${count} texts`);
  const dim = model.dimensions ?? (vectors[0] as unknown[] | undefined)?.length;
  vectors.forEach((v: unknown, i) => {
    if (!Array.isArray(v)) throw fail(`[${i}] is not an array`);
    if (v.length === 0) throw fail(`[${i}] must not be empty`);
    for (let j = 0; j < v.length; j++)
      if (typeof v[j] !== 'number' || !Number.isFinite(v[j])) throw fail(`[${i}][${j}] must be a finite number`);
    if (v.length !== dim)
      throw new Error(
        `embedding model ${model.id} returned a vector of length ${v.length} for text ${i + 1}; expected ${dim}`,
      );
  });
  return vectors as number[][];
}
