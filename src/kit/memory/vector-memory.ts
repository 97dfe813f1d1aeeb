import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EmbeddingModel, Memory, MemoryRecord } from '../../core/index.js';
import { MemoryRecord as MemoryRecordSchema, checkEmbeddings, errorMessage } from '../../core/index.js';
import { VectorMatrix, hashingEmbedder } from '../../models/embedders/index.js';
import { recordText } from './record-text.js';

/** Options of {@link vectorMemory}. */
export interface VectorMemoryOptions {
  /** Turns records and queries into vectors (default: the offline hashing embedder, 512 dimensions). */
  embedder?: EmbeddingModel;
  /** Records kept (default 100,000); past it the oldest are dropped by `evict`. */
  maxRecords?: number;
  /**
   * A JSONL file that makes the memory outlive the run: every append adds one line (record + vector + embedder
   * id), and `reset` (the start of each run) reads the file back. Lines of another embedder are skipped.
   */
  path?: string;
}

interface Stored {
  record: MemoryRecord;
  embedder: string;
  vector: number[];
}

/**
 * Retrieval by meaning: every record's content is embedded on append, and `retrieve(query, k)` returns the `k`
 * records most similar to the query (cosine), best first, each with its score in `metadata.score`. The scan is
 * the one skills retrieval uses (a packed Float32 matrix; a sparse query touches only its non-zero columns).
 *
 * Persistence is an append-only JSONL file rather than a vectra index: vectra rewrites its whole index.json on
 * every update, O(n) per append, where a memory appends one record at a time.
 */
export function vectorMemory(options: VectorMemoryOptions = {}): Memory {
  const embedder = options.embedder ?? hashingEmbedder();
  const maxRecords = options.maxRecords ?? 100_000;
  if (!Number.isInteger(maxRecords) || maxRecords < 1)
    throw new Error(`vectorMemory: maxRecords must be a positive integer, got ${maxRecords}`);
  let records: MemoryRecord[] = [];
  let matrix: VectorMatrix | undefined;
  let vectors: number[][] = [];

  const embed = async (texts: string[], signal?: AbortSignal) =>
    checkEmbeddings(embedder, texts.length, await embedder.embed(texts, signal ? { signal } : {}));
  const add = (record: MemoryRecord, vector: number[]) => {
    matrix ??= new VectorMatrix([], vector.length);
    matrix.add(vector);
    records.push(record);
    vectors.push(vector);
  };
  const rebuild = (keep: number) => {
    records = records.slice(-keep);
    vectors = vectors.slice(-keep);
    matrix = vectors.length ? new VectorMatrix(vectors, vectors[0].length) : undefined;
  };

  return {
    name: 'vector',
    async append(record, ctx) {
      const [vector] = await embed([record.content], ctx.signal);
      add(record, vector);
      if (options.path) {
        const line: Stored = { record, embedder: embedder.id, vector };
        await mkdir(dirname(options.path), { recursive: true });
        await appendFile(options.path, JSON.stringify(line) + '\n');
      }
    },
    async retrieve(query, k, ctx) {
      if (!matrix || k < 1) return [];
      const [q] = await embed([query], ctx.signal);
      return matrix
        .top(q, Math.min(k, records.length))
        .map(({ row, score }) => ({ ...records[row], metadata: { ...records[row].metadata, score } }));
    },
    summarize() {
      return `${records.length} records; latest: ${records.slice(-5).map(recordText).join(' | ')}`;
    },
    evict() {
      const over = Math.max(0, records.length - maxRecords);
      if (over) rebuild(maxRecords);
      return over;
    },
    async reset() {
      records = [];
      vectors = [];
      matrix = undefined;
      if (!options.path) return;
      const text = await readFile(options.path, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return '';
        throw new Error(`vectorMemory: cannot read ${options.path}: ${errorMessage(err)}`, { cause: err });
      });
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        if (!line.trim()) return;
        let stored: Stored;
        try {
          stored = JSON.parse(line) as Stored;
        } catch {
          // The last line may have been cut by a crash mid-append; any other bad line is an error.
          if (i >= lines.length - 2) return;
          throw new Error(`vectorMemory: ${options.path} line ${i + 1} is not JSON`);
        }
        if (stored.embedder !== embedder.id) return;
        const record = MemoryRecordSchema.safeParse(stored.record);
        if (!record.success || !Array.isArray(stored.vector))
          throw new Error(`vectorMemory: ${options.path} line ${i + 1} is not a memory record`);
        add(record.data, checkEmbeddings(embedder, 1, [stored.vector])[0]);
      });
      if (records.length > maxRecords) rebuild(maxRecords);
    },
  };
}
