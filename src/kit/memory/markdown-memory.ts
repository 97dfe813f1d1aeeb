import { randomBytes } from 'node:crypto';
import { appendFile, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Memory, MemoryRecord } from '../../core/index.js';
import { errorMessage } from '../../core/index.js';
import { VectorMatrix, hashText } from '../../models/embedders/index.js';
import { NOTES_TITLE, formatNote, parseNotes } from './markdown-notes.js';
import { withFileLock } from './file-lock.js';
import { recordText } from './record-text.js';

/** Options of {@link markdownMemory}. */
export interface MarkdownMemoryOptions {
  /** The notes file (e.g. `<workspace>/.qitos/memory.md`); created on the first append. */
  path: string;
  /** Records kept by `evict` (default 200): the file is rewritten with the newest ones. */
  maxRecords?: number;
}

const DIMS = 512;

/**
 * A notes file a person can read and edit: every append adds a `## role (step N)` block to a markdown file, and
 * each run starts by reading the file back (`reset` reloads it; it never empties it), so what one run learned is
 * there for the next, and what a researcher writes into the file by hand is too. `retrieve(query, k)` ranks the
 * notes by lexical similarity to the query (the offline hashing embedder), most similar first, each with
 * `metadata.score`. Delete the file to forget.
 */
export function markdownMemory(options: MarkdownMemoryOptions): Memory {
  const maxRecords = options.maxRecords ?? 200;
  if (!options.path) throw new Error('markdownMemory: path is required');
  if (!Number.isInteger(maxRecords) || maxRecords < 1)
    throw new Error(`markdownMemory: maxRecords must be a positive integer, got ${maxRecords}`);
  let records: MemoryRecord[] = [];
  let matrix = new VectorMatrix([], DIMS);
  /** The file is known to exist with its title (checked once per memory). */
  let titled = false;
  // Writes of this memory are chained, and every write holds the file's lock (<path>.lock), so appends and
  // evictions of other memories on the same file, in this process or another, never interleave or undo each other:
  // an eviction rereads, rewrites and renames the file while no append can land in between.
  let writing: Promise<unknown> = Promise.resolve();

  const load = async () => {
    const text = await readFile(options.path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw new Error(`markdownMemory: cannot read ${options.path}: ${errorMessage(err)}`, { cause: err });
    });
    records = parseNotes(text);
    matrix = new VectorMatrix(
      records.map((r) => hashText(`${r.role} ${r.content}`, DIMS)),
      DIMS,
    );
  };
  const write = (fn: () => Promise<void>) => {
    const next = writing.then(async () => {
      await mkdir(dirname(options.path), { recursive: true });
      await withFileLock(options.path, fn);
    });
    writing = next.catch(() => undefined);
    return next;
  };

  return {
    name: 'markdown',
    append(record) {
      records.push(record);
      matrix.add(hashText(`${record.role} ${record.content}`, DIMS));
      return write(async () => {
        if (!titled) await createWithTitle(options.path);
        titled = true;
        await appendFile(options.path, formatNote(record));
      });
    },
    retrieve(query, k) {
      if (k < 1 || records.length === 0) return [];
      const hits = matrix.top(hashText(query, DIMS), Math.min(k, records.length));
      // A query with no words (empty, or only stopwords) ranks nothing: the newest notes then.
      if (hits.length === 0) return records.slice(-k).reverse();
      return hits.map(({ row, score }) => ({ ...records[row], metadata: { ...records[row].metadata, score } }));
    },
    summarize() {
      return records.map(recordText).join('\n');
    },
    /** Keeps the newest `maxRecords` notes: the file is rewritten (atomically) without the older ones. */
    async evict() {
      let over = 0;
      await write(async () => {
        // Counted on the file as it is now, under the lock: other memories may have appended to it.
        await load();
        over = Math.max(0, records.length - maxRecords);
        if (!over) return;
        const keep = records.slice(-maxRecords);
        const tmp = `${options.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
        await writeFile(tmp, `${NOTES_TITLE}\n\n` + keep.map(formatNote).join(''));
        await rename(tmp, options.path);
        records = keep;
        matrix = new VectorMatrix(
          records.map((r) => hashText(`${r.role} ${r.content}`, DIMS)),
          DIMS,
        );
      });
      return over;
    },
    async reset() {
      await writing;
      await load();
    },
  };
}

/**
 * Creates the notes file with its title, atomically: the title is written to a temporary file that is then
 * hard-linked into place (a link, unlike an exclusive open, makes the file appear with its content), so a run
 * appending at the same moment never writes before the title. An existing file is left as it is.
 */
async function createWithTitle(path: string): Promise<void> {
  if (
    await stat(path).then(
      () => true,
      () => false,
    )
  )
    return;
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${NOTES_TITLE}\n\n`);
  try {
    await link(tmp, path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(tmp, { force: true });
  }
}
