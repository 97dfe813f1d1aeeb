import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The sha-256 (hex) of a file's bytes, as the manifest's `files` lists it. */
export function fileSha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** What a trace folder holds, as its `files` digest sees it. */
interface FolderListing {
  /** Files (paths relative to the folder, `/`-separated) outside child traces, but `manifest.json` at the top. */
  files: string[];
  /** Folders below the top that hold a `manifest.json`: child traces (a workflow's `threads/<id>`, a sub-agent's `subtasks/<id>`). */
  children: string[];
  /** Anything that is neither a plain file nor a folder (a symbolic link, a pipe): a writer never leaves one. */
  others: string[];
}

/**
 * Lists a trace folder. A child trace is listed as itself (its own manifest covers its files), so a parent's digest
 * holds only its child's `manifest.json`. Names starting with `.` are skipped: the writer's temp files (a reader reads
 * none of them).
 */
function listFolder(dir: string): FolderListing {
  const out: FolderListing = { files: [], children: [], others: [] };
  const walk = (rel: string) => {
    for (const e of readdirSync(rel ? join(dir, rel) : dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isFile()) {
        if (path !== 'manifest.json') out.files.push(path);
      } else if (e.isDirectory()) {
        if (lstatSync(join(dir, path, 'manifest.json'), { throwIfNoEntry: false })?.isFile()) out.children.push(path);
        else walk(path);
      } else out.others.push(path);
    }
  };
  walk('');
  return out;
}

/**
 * The `files` digest of a trace folder as its writer finishes it: `own` (the digests the writer kept while writing:
 * events.jsonl, steps.jsonl, artifacts) plus, for everything else in the folder, its sha-256 read now: a child
 * trace's `manifest.json` (the child's own `files` cover the rest of it; `children` holds the digests the child
 * writers reported, read from disk only when a child did not report), any other file whole.
 */
export function folderDigests(
  dir: string,
  own: Readonly<Record<string, string>>,
  children: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const listing = listFolder(dir);
  const out: Record<string, string> = {};
  for (const f of listing.files) out[f] = own[f] ?? fileSha256(readFileSync(join(dir, f)));
  for (const c of listing.children) {
    const key = `${c}/manifest.json`;
    out[key] = children[key] ?? fileSha256(readFileSync(join(dir, c, 'manifest.json')));
  }
  // A file the writer kept a digest of but that is not there (a JSONL file not created yet) is listed all the same.
  for (const [f, d] of Object.entries(own)) out[f] ??= d;
  return out;
}

/**
 * Checks a trace folder against the `files` digest its manifest holds: every file listed is there with that
 * sha-256, nothing else is, and every child trace checks against its own manifest's digest (whose bytes the
 * parent's digest covers). Returns what differs first (one phrase naming the file), or undefined when all match.
 * `known` holds digests the caller already computed (from the bytes it read).
 */
export function traceFilesProblem(
  dir: string,
  files: Readonly<Record<string, string>>,
  known: Readonly<Record<string, string>> = {},
  at = '',
): string | undefined {
  let listing: FolderListing;
  try {
    listing = listFolder(dir);
  } catch (err) {
    return `${at || 'its folder'} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (listing.others.length) return `${at}${listing.others[0]} is not a plain file or folder`;
  const present = new Set([...listing.files, ...listing.children.map((c) => `${c}/manifest.json`)]);
  for (const f of present) if (!Object.hasOwn(files, f)) return `${at}${f} was added after it was signed`;
  for (const [f, digest] of Object.entries(files)) {
    if (!present.has(f)) return `${at}${f} was removed after it was signed`;
    const actual = known[f] ?? fileSha256(readFileSync(join(dir, f)));
    if (actual !== digest) return `${at}${f} changed after it was signed`;
  }
  for (const c of listing.children) {
    let child: unknown;
    try {
      child = JSON.parse(readFileSync(join(dir, c, 'manifest.json'), 'utf8'));
    } catch {
      return `${at}${c}/manifest.json is not JSON`;
    }
    const childFiles = (child as { files?: unknown } | null)?.files;
    if (!isDigest(childFiles)) return `${at}${c}/manifest.json lists no file digests`;
    const problem = traceFilesProblem(join(dir, c), childFiles, {}, `${at}${c}/`);
    if (problem) return problem;
  }
  return undefined;
}

/** A `files` value as a manifest holds it: file paths to hex digests. */
export function isDigest(v: unknown): v is Record<string, string> {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((d) => typeof d === 'string')
  );
}

/** The child traces of a trace folder (a workflow's `threads/<id>`, a sub-agent's `subtasks/<id>`), as absolute paths. */
export function childTraceDirs(dir: string): string[] {
  return listFolder(dir).children.map((c) => join(dir, c));
}
