/**
 * Vectors of one length packed row by row in a Float32Array, for cosine-similarity scans: one pass over the rows
 * keeps only the best `k`, and a query that is mostly zeros (a few words through the hashing embedder) touches
 * only its non-zero columns, so a scan costs rows x non-zeros rather than rows x dimensions.
 */
export class VectorMatrix {
  readonly rows: number;
  private readonly data: Float32Array;
  /** Row norms in double precision: a float32 norm of a tiny vector (denormal values) can be off by 40%. */
  private readonly norms: Float64Array;

  constructor(
    vectors: readonly (readonly number[])[],
    readonly dims: number,
  ) {
    this.rows = vectors.length;
    this.data = new Float32Array(this.rows * dims);
    this.norms = new Float64Array(this.rows);
    vectors.forEach((v, i) => {
      if (v.length !== dims) throw new Error(`vector ${i} has length ${v.length}; this index holds vectors of length ${dims}`);
      this.data.set(v, i * dims);
      let sq = 0;
      for (const x of v) sq += x * x;
      this.norms[i] = Math.sqrt(sq);
    });
  }

  /** The `k` rows most similar to `query` (cosine), best first, as row indexes with scores. */
  top(query: readonly number[], k: number): Array<{ row: number; score: number }> {
    if (this.rows === 0) return [];
    if (query.length !== this.dims) throw new Error(`the query vector has length ${query.length}; this index holds vectors of length ${this.dims}`);
    let sq = 0;
    const nz: number[] = [];
    for (let j = 0; j < query.length; j++) {
      if (query[j] !== 0) nz.push(j);
      sq += query[j] * query[j];
    }
    const qNorm = Math.sqrt(sq);
    if (qNorm === 0) return [];
    const q = Float32Array.from(query);
    const cols = Int32Array.from(nz);
    const sparse = cols.length * 2 < this.dims;
    const best: Array<{ row: number; score: number }> = [];
    const { data, dims, norms } = this;
    for (let i = 0; i < this.rows; i++) {
      const o = i * dims;
      let dot = 0;
      if (sparse) for (let c = 0; c < cols.length; c++) dot += q[cols[c]] * data[o + cols[c]];
      else for (let j = 0; j < dims; j++) dot += q[j] * data[o + j];
      const score = norms[i] === 0 ? 0 : dot / (qNorm * norms[i]);
      if (best.length === k && score <= best[k - 1].score) continue;
      // insertion into the short sorted list of the best so far
      let at = best.length;
      while (at > 0 && best[at - 1].score < score) at--;
      best.splice(at, 0, { row: i, score });
      if (best.length > k) best.pop();
    }
    return best;
  }
}
