import { z } from 'zod';

/**
 * The skills index file (`index.json`, format 2): per skill its name, description, SKILL.md content hash and path,
 * and its vector quantised to 8 bits (`v`, base64; see {@link encodeVector}). About 0.6 KB a skill with the hashing
 * embedder, against 2.7 KB as vectra's JSON numbers (format 1, which is rebuilt from the folders when met).
 */
export const SkillIndexFile = z.object({
  format: z.literal('qitos-skills-index'),
  version: z.literal(2),
  /** Length of every vector (0 while the index is empty). */
  dims: z.number().int().min(0).max(65_536),
  items: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      /** The SKILL.md content's sha-256, base64url. */
      hash: z.string(),
      /** The SKILL.md path, relative to the skills root. */
      path: z.string(),
      v: z.string(),
    }),
  ),
});
export type SkillIndexFile = z.infer<typeof SkillIndexFile>;
export type SkillIndexItem = SkillIndexFile['items'][number];

const DENSE = 0;
const SPARSE = 1;
const BITMAP = 2;

/**
 * A vector as base64 of: a kind byte, its scale (float32: the largest |component| / 127), then its components as
 * int8, in the smallest of three layouts: every component (dense); a uint16 count and (uint16 index, int8 value)
 * pairs of the non-zero ones (a few words through the hashing embedder); or a bitmap of which components are
 * non-zero followed by their values (the hashing embedder's usual 100-250 of 512). Components are rounded to the
 * nearest 1/127 of the largest one: cosine scores move by about 1e-3, the ranking of top-k results rarely (the skills
 * benchmark measures the recall against the float vectors).
 */
export function encodeVector(v: readonly number[]): string {
  if (v.length > 65_536) throw new Error(`a skills index vector has at most 65,536 components, got ${v.length}`);
  let max = 0;
  let nonZero = 0;
  for (const x of v) {
    if (!Number.isFinite(x)) throw new Error(`a vector component is not a finite number: ${x}`);
    const a = Math.abs(x);
    if (a > max) max = a;
    if (x !== 0) nonZero++;
  }
  const scale = Math.fround(max / 127);
  const q = (x: number) => (scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(x / scale))));
  const bitmap = Math.ceil(v.length / 8);
  const sizes = [5 + v.length, 7 + nonZero * 3, 5 + bitmap + nonZero];
  const kind = sizes.indexOf(Math.min(...sizes));
  const buf = Buffer.alloc(sizes[kind]);
  buf.writeUInt8(kind, 0);
  buf.writeFloatLE(scale, 1);
  if (kind === DENSE) for (let j = 0; j < v.length; j++) buf.writeInt8(q(v[j]), 5 + j);
  else if (kind === SPARSE) {
    buf.writeUInt16LE(nonZero, 5);
    let o = 7;
    for (let j = 0; j < v.length; j++) {
      if (v[j] === 0) continue;
      buf.writeUInt16LE(j, o);
      buf.writeInt8(q(v[j]), o + 2);
      o += 3;
    }
  } else {
    let o = 5 + bitmap;
    for (let j = 0; j < v.length; j++) {
      if (v[j] === 0) continue;
      buf[5 + (j >> 3)] |= 1 << (j & 7);
      buf.writeInt8(q(v[j]), o++);
    }
  }
  return buf.toString('base64');
}

/** Decodes `code` into `out` (zeroed where sparse) at `offset`; throws when it is not a vector of `dims` components. */
export function decodeVector(code: string, dims: number, out: Float32Array, offset = 0): void {
  const buf = Buffer.from(code, 'base64');
  if (buf.length < 5) throw new Error('a vector code is cut short');
  const kind = buf.readUInt8(0);
  const scale = buf.readFloatLE(1);
  if (kind === DENSE) {
    if (buf.length !== 5 + dims) throw new Error(`a dense vector code holds ${buf.length - 5} components, not ${dims}`);
    for (let j = 0; j < dims; j++) out[offset + j] = buf.readInt8(5 + j) * scale;
    return;
  }
  if (kind === BITMAP) {
    const bitmap = Math.ceil(dims / 8);
    let o = 5 + bitmap;
    out.fill(0, offset, offset + dims);
    for (let j = 0; j < dims; j++) {
      if (!(buf[5 + (j >> 3)] & (1 << (j & 7)))) continue;
      if (o >= buf.length) throw new Error('a bitmap vector code is cut short');
      out[offset + j] = buf.readInt8(o++) * scale;
    }
    if (o !== buf.length)
      throw new Error(`a bitmap vector code has ${buf.length - o} bytes too many for ${dims} components`);
    return;
  }
  if (kind !== SPARSE || buf.length < 7) throw new Error(`unknown vector code kind ${kind}`);
  const n = buf.readUInt16LE(5);
  if (buf.length !== 7 + n * 3) throw new Error(`a sparse vector code is ${buf.length} bytes, not ${7 + n * 3}`);
  out.fill(0, offset, offset + dims);
  for (let i = 0, o = 7; i < n; i++, o += 3) {
    const j = buf.readUInt16LE(o);
    if (j >= dims) throw new Error(`a sparse vector code names component ${j} of ${dims}`);
    out[offset + j] = buf.readInt8(o + 2) * scale;
  }
}

/** Parses index.json text; a clear error for anything but format 2 (an older vectra index, a cut file). */
export function parseSkillIndex(text: string): SkillIndexFile {
  const json: unknown = JSON.parse(text);
  const version = (json as { version?: unknown } | null)?.version;
  if ((json as { format?: unknown } | null)?.format !== 'qitos-skills-index')
    throw new Error(`not a skills index of format 2 (version ${JSON.stringify(version ?? null)}, an older format)`);
  const parsed = SkillIndexFile.safeParse(json);
  if (!parsed.success) throw new Error(`the index does not match format 2: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
