import type { EmbeddingModel } from '../../core/index.js';

/** Options of the hashing embedder. */
export interface HashingEmbedderOptions {
  /** Vector length (default 512: few enough hash collisions to keep unrelated texts near 0, small enough to scan 10,000 fast). */
  dimensions?: number;
}

/**
 * Words so common in skill descriptions ("Use this skill when ...") that they would make every description look
 * alike; without corpus statistics a fixed list is what keeps them from dominating.
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be by can do for from has have how i if in into is it its me my of on ' +
    'or our should so than that the their them then these this those to use used uses using ' +
    'want was we what when where which who will with you your'
  ).split(' '),
);
/** Scripts written without spaces between words: they are split into characters and character pairs. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * The default embedder: deterministic, offline, no model. A text becomes a bag of features (stemmed words, word
 * pairs and character trigrams of words; characters and character pairs for Chinese, Japanese and Korean), each
 * weighted by its kind and 1 + ln(count) and hashed (FNV-1a, with a hashed sign) into a fixed-length vector,
 * then L2-normalised. Texts that share words and word stems get a high cosine similarity; it knows no synonyms, so
 * retrieval with it is lexical with fuzzy matching. Same text, same vector, on every machine.
 */
export function hashingEmbedder(options: HashingEmbedderOptions = {}): EmbeddingModel {
  const dimensions = options.dimensions ?? 512;
  if (!Number.isInteger(dimensions) || dimensions < 8 || dimensions > 65536)
    throw new Error(`hashingEmbedder: dimensions must be an integer from 8 to 65536, got ${dimensions}`);
  return {
    id: `hashing:v1-${dimensions}`,
    dimensions,
    embed: async (texts) => texts.map((t) => hashText(t, dimensions)),
  };
}

/** Feature kinds: the prefix that keeps e.g. the word "the" apart from the trigram "the", and the kind's weight. */
const KINDS = [
  { prefix: 'w:', weight: 1 }, // stemmed word
  { prefix: 'b:', weight: 0.5 }, // pair of adjacent words
  // Trigrams of a word with its boundaries ("slideshows" and "slides" share "<sl", "sli", "lid"), weighted low:
  // they catch compounds and typos, and each one is also a chance of a hash collision.
  { prefix: 't:', weight: 0.15 },
  { prefix: 'c:', weight: 1 }, // CJK character
  { prefix: 'cc:', weight: 1 }, // pair of CJK characters
];
const FNV_OFFSET = 0x811c9dc5;
const KIND_HASH = KINDS.map((k) => fnv(FNV_OFFSET, k.prefix, 0, k.prefix.length));

/**
 * The hashed feature vector of one text (see {@link hashingEmbedder}). Each feature's hash is FNV-1a of its
 * prefixed text, computed piece by piece without building the string; counts are kept per hash and kind.
 */
export function hashText(text: string, dimensions: number): number[] {
  // key = hash * 8 + kind -> count
  const counts = new Map<number, number>();
  const add = (h: number, kind: number) => {
    const key = h * 8 + kind;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  let previous: string | undefined;
  for (const [token] of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    if (UNSPACED.test(token)) {
      const chars = [...token];
      chars.forEach((c, i) => {
        add(fnv(KIND_HASH[3], c, 0, c.length), 3);
        if (i > 0) add(fnv(fnv(KIND_HASH[4], chars[i - 1], 0, chars[i - 1].length), c, 0, c.length), 4);
      });
      previous = undefined;
      continue;
    }
    if (STOPWORDS.has(token)) continue;
    const stemmed = stem(token);
    add(fnv(KIND_HASH[0], stemmed, 0, stemmed.length), 0);
    if (previous) add(fnv(fnv(fnv(KIND_HASH[1], previous, 0, previous.length), ' ', 0, 1), token, 0, token.length), 1);
    previous = token;
    const padded = `<${token}>`;
    if (padded.length > 4) for (let i = 0; i + 3 <= padded.length; i++) add(fnv(KIND_HASH[2], padded, i, i + 3), 2);
  }
  const v = new Float64Array(dimensions);
  for (const [key, count] of counts) {
    const h = Math.floor(key / 8);
    const weight = KINDS[key % 8].weight;
    v[h % dimensions] += (h & 0x80000000 ? -weight : weight) * (1 + Math.log(count));
  }
  let sq = 0;
  for (const x of v) sq += x * x;
  const norm = Math.sqrt(sq) || 1;
  return Array.from(v, (x) => x / norm);
}

/**
 * A light English stemmer: plural and verb endings off, so "newsletters" meets "newsletter" and "styling" meets
 * "styles". Short words are kept whole; words of other languages pass through mostly untouched.
 */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 5) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ly')) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** 32-bit FNV-1a over the UTF-16 code units of `s[from, to)`, continuing from hash `h` (start at FNV_OFFSET). */
function fnv(h: number, s: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
