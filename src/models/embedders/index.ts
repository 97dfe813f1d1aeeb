/**
 * Embedding models (`EmbeddingModel`, src/core): the offline hashing embedder (the default of skill retrieval and
 * vector memory), transformers.js run in-process from a local folder, and any OpenAI-compatible embeddings endpoint;
 * and `VectorMatrix`, the in-memory cosine search over their vectors that retrieval and memory share.
 */
export { hashingEmbedder, hashText, type HashingEmbedderOptions } from './hashing-embedder.js';
export { openAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder.js';
export { transformersEmbedder, type TransformersEmbedderOptions } from './transformers-embedder.js';
export { VectorMatrix } from './vector-matrix.js';
