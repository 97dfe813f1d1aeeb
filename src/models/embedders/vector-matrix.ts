/**
 * Vectors of one length packed row by row in a Float32Array, for cosine-similarity scans: one pass over the rows
 * keeps only the best `k`, and a query that is mostly zeros (a few words through the hashing embedder) touches
 * only its non-zero columns, so a scan costs rows x non-zeros rather than rows x dimensions. Rows can be added
 * one at a time (vector memory): the storage doubles when full, so an append costs O(dims) amortised.
 */
export class VectorMatrix {
  private count = 0;
  private data: Float32Array;
  /** Row norms in double precision: a float32 norm of a tiny vector (denormal values) can be off by 40%. */
  private norms: Float64Array;

  constructor(
    vectors: readonly (readonly number[])[],
    readonly dims: number,
  ) {
    this.data = new Float32Array(vectors.length * dims);
    this.norms = new Float64Array(vectors.length);
    for (const v of vectors) this.add(v);
  }

  /** A matrix of `rows` rows that `fill` writes straight into the packed storage (no array per row in between). */
  static fromRows(
    rows: number,
    dims: number,
    fill: (data: Float32Array, offset: number, row: number) => void,
  ): VectorMatrix {
    const m = new VectorMatrix([], dims);
    m.data = new Float32Array(rows * dims);
    m.norms = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      const o = i * dims;
      fill(m.data, o, i);
      let sq = 0;
      for (let j = o; j < o + dims; j++) sq += m.data[j] * m.data[j];
      m.norms[i] = Math.sqrt(sq);
    }
    m.count = rows;
    return m;
  }

  /** How many vectors the matrix holds. */
  get rows(): number {
    return this.count;
  }

  /** Appends a vector as the last row. */
  add(v: readonly number[]): void {
    if (v.length !== this.dims)
      throw new Error(`vector ${this.count} has length ${v.length}; this index holds vectors of length ${this.dims}`);
    if (this.count === this.norms.length) {
      const capacity = Math.max(16, this.norms.length * 2);
      const data = new Float32Array(capacity * this.dims);
      data.set(this.data);
      const norms = new Float64Array(capacity);
      norms.set(this.norms);
      this.data = data;
      this.norms = norms;
    }
    this.data.set(v, this.count * this.dims);
    let sq = 0;
    for (const x of v) sq += x * x;
    this.norms[this.count] = Math.sqrt(sq);
    this.count++;
  }

  /** The `k` rows most similar to `query` (cosine), best first, as row indexes with scores. */
  top(query: readonly number[], k: number): Array<{ row: number; score: number }> {
    if (this.rows === 0) return [];
    if (query.length !== this.dims)
      throw new Error(`the query vector has length ${query.length}; this index holds vectors of length ${this.dims}`);
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
    for (let i = 0; i < this.count; i++) {
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
