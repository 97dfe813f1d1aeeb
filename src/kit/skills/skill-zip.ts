import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { isInside } from '../../envs/index.js';
import { QitosError, markErrorClass } from '../../core/index.js';

/** Limits on what a skill ZIP may unpack to. Every field has a default. */
export interface SkillZipLimits {
  /** Entries (files and folders) in the archive (default 1,000). */
  maxEntries?: number;
  /** Bytes of all files once unpacked (default 50 MiB). */
  maxBytes?: number;
  /** Unpacked size / compressed size of one file (default 100): beyond it the file is a zip bomb. */
  maxRatio?: number;
  /** Files smaller than this are not held to `maxRatio` (default 1 MiB: a small file of blanks compresses well). */
  ratioMinBytes?: number;
}

const DEFAULTS: Required<SkillZipLimits> = {
  maxEntries: 1000,
  maxBytes: 50 * 1024 * 1024,
  maxRatio: 100,
  ratioMinBytes: 1024 * 1024,
};
/** Longest entry name, and longest single path component (what common file systems accept). */
const MAX_NAME = 512;
const MAX_COMPONENT = 255;
/** File types in the Unix mode bits (`S_IFMT`) of an entry's external attributes. */
const S_IFMT = 0o170000;
const UNIX_TYPES: Record<number, string | undefined> = {
  0o100000: undefined, // regular file
  0o040000: undefined, // directory
  0o120000: 'a symbolic link',
  0o020000: 'a character device',
  0o060000: 'a block device',
  0o010000: 'a FIFO',
  0o140000: 'a socket',
};

/** A skill ZIP that was refused; the message names the entry and the rule it broke. */
export class SkillZipError extends QitosError {
  static {
    markErrorClass(this, 'SkillZipError');
  }

  constructor(message: string) {
    super('skill', `skill ZIP refused: ${message}`);
    this.name = 'SkillZipError';
  }
}

/** What `extractSkillZip` unpacked. */
export interface ExtractedSkill {
  /** The folder holding SKILL.md: `dest`, or `dest/<top folder>`. */
  skillDir: string;
  files: number;
  bytes: number;
}

/**
 * Why an entry name may not be unpacked (undefined when it may): absolute or drive paths, `..`, `.` or empty
 * components, backslashes, NUL or control characters, over-long names. A name this accepts always resolves
 * inside the destination folder.
 */
export function entryNameProblem(name: string): string | undefined {
  if (!name) return 'has an empty name';
  if (name.length > MAX_NAME) return `has a name longer than ${MAX_NAME} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'has a control character in its name';
  if (name.includes('\\')) return 'has a backslash in its name';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'has an absolute path';
  const parts = name.replace(/\/$/, '').split('/');
  if (parts.includes('..')) return 'leaves the skill folder (..)';
  if (parts.some((p) => p === '' || p === '.')) return 'has an empty or "." path component';
  if (parts.some((p) => p.length > MAX_COMPONENT))
    return `has a path component longer than ${MAX_COMPONENT} characters`;
  return undefined;
}

/** Entries that archivers add and a skill never needs (macOS resource forks and Finder files). */
function isJunk(name: string): boolean {
  return name.startsWith('__MACOSX/') || posix.basename(name.replace(/\/$/, '')) === '.DS_Store';
}

interface Planned {
  entry: yauzl.Entry;
  name: string;
  dir: boolean;
}

/**
 * Unpacks a skill ZIP (a file path or the bytes) into `dest`, an empty folder the caller made, with the
 * maintained `yauzl` reader. The whole central directory is checked before any byte is written: entry names
 * (see {@link entryNameProblem}), types (symbolic links, devices, FIFOs and sockets are refused), encryption,
 * duplicates, the entry count, declared sizes and ratios, and the layout: exactly one `SKILL.md`, at the root or
 * in the single top folder that holds everything. Then files are streamed out while the real unpacked bytes are
 * counted against `maxBytes` and `maxRatio` (headers can lie), each created exclusively (`wx`) with mode 0644
 * and no link ever made. Throws SkillZipError naming the entry; the caller removes `dest` on failure.
 */
export async function extractSkillZip(
  source: string | Uint8Array,
  dest: string,
  limits: SkillZipLimits = {},
): Promise<ExtractedSkill> {
  const lim = { ...DEFAULTS, ...limits };
  const zip = await openZip(source);
  try {
    if (zip.entryCount > lim.maxEntries)
      throw new SkillZipError(`it has ${zip.entryCount} entries; at most ${lim.maxEntries} are allowed`);
    const plan = await planEntries(zip, lim);
    const skillDir = skillFolder(plan);
    let total = 0;
    let files = 0;
    for (const p of plan) {
      const target = resolve(dest, p.name);
      // entryNameProblem already guarantees this; checked again because a slip here writes outside the staging folder
      if (!isInside(dest, target)) throw new SkillZipError(`entry "${p.name}" leaves the skill folder`);
      if (p.dir) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(dirname(target), { recursive: true });
      total += await writeEntry(zip, p, target, lim, lim.maxBytes - total);
      files++;
    }
    return { skillDir: skillDir ? join(dest, skillDir) : dest, files, bytes: total };
  } finally {
    zip.close();
  }
}

async function openZip(source: string | Uint8Array): Promise<yauzl.ZipFile> {
  const options = {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: true,
    validateEntrySizes: true,
    strictFileNames: false,
  };
  try {
    return typeof source === 'string'
      ? await yauzl.openPromise(source, options)
      : await yauzl.fromBufferPromise(Buffer.from(source.buffer, source.byteOffset, source.byteLength), options);
  } catch (err) {
    throw new SkillZipError(`not a readable ZIP file: ${(err as Error).message}`);
  }
}

/** Reads and checks the central directory: the entries to unpack, in order. */
async function planEntries(zip: yauzl.ZipFile, lim: Required<SkillZipLimits>): Promise<Planned[]> {
  const plan: Planned[] = [];
  const seen = new Set<string>();
  let declared = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      const problem = entryNameProblem(name);
      if (problem) throw new SkillZipError(`entry "${name}" ${problem}`);
      if (isJunk(name)) continue;
      const dir = name.endsWith('/');
      const type = entryType(entry);
      if (type) throw new SkillZipError(`entry "${name}" is ${type}; only files and folders may be unpacked`);
      if (entry.isEncrypted()) throw new SkillZipError(`entry "${name}" is encrypted`);
      const key = name.replace(/\/$/, '');
      if (seen.has(key)) throw new SkillZipError(`entry "${name}" appears twice`);
      seen.add(key);
      if (!dir) {
        declared += entry.uncompressedSize;
        if (declared > lim.maxBytes)
          throw new SkillZipError(`it unpacks to more than ${lim.maxBytes} bytes (at entry "${name}")`);
        checkRatio(name, entry.uncompressedSize, entry.compressedSize, lim);
      }
      plan.push({ entry, name, dir });
    }
  } catch (err) {
    if (SkillZipError.isInstance(err)) throw err;
    throw new SkillZipError(readerMessage((err as Error).message));
  }
  // A file "a" and an entry "a/b" cannot both exist: refuse here rather than fail half-way through writing.
  const fileNames = new Set(plan.filter((p) => !p.dir).map((p) => p.name));
  for (const p of plan) {
    const parts = p.name.replace(/\/$/, '').split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (fileNames.has(parent)) throw new SkillZipError(`entry "${p.name}" is inside "${parent}", which is a file`);
    }
  }
  return plan;
}

/** The Unix file type an entry declares, when it is not a plain file or folder. */
function entryType(entry: yauzl.Entry): string | undefined {
  const madeBy = entry.versionMadeBy >> 8;
  const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
  // Only Unix (3) and macOS (19) archivers put Unix mode bits in the high half.
  if ((madeBy !== 3 && madeBy !== 19) || mode === 0) return undefined;
  const kind = mode & S_IFMT;
  // No type bits (Python's zipfile.writestr writes 0600 alone): a regular file, as every extractor reads it.
  if (kind === 0) return undefined;
  if (kind in UNIX_TYPES) return UNIX_TYPES[kind];
  return `of an unknown file type (mode ${mode.toString(8)})`;
}

function checkRatio(name: string, bytes: number, compressed: number, lim: Required<SkillZipLimits>): void {
  if (bytes < lim.ratioMinBytes) return;
  const ratio = bytes / Math.max(1, compressed);
  if (ratio > lim.maxRatio)
    throw new SkillZipError(
      `entry "${name}" expands ${Math.round(ratio)} times (${compressed} to ${bytes} bytes); at ` +
        `most ${lim.maxRatio} is allowed (a zip bomb?)`,
    );
}

/** Where SKILL.md is: '' (root) or the single top folder. Refuses any other layout. */
function skillFolder(plan: Planned[]): string {
  const skillFiles = plan.filter((p) => !p.dir && posix.basename(p.name) === 'SKILL.md').map((p) => p.name);
  if (skillFiles.length === 0)
    throw new SkillZipError('it has no SKILL.md (put it at the root of the ZIP or in its single top folder)');
  if (skillFiles.length > 1)
    throw new SkillZipError(
      `it has ${skillFiles.length} SKILL.md files (${skillFiles.slice(0, 5).join(', ')}); a skill ZIP holds exactly one`,
    );
  const [path] = skillFiles;
  if (path === 'SKILL.md') return '';
  const parts = path.split('/');
  if (parts.length !== 2)
    throw new SkillZipError(
      `its SKILL.md is at "${path}"; it must be at the root of the ZIP or in its single top folder`,
    );
  const top = parts[0];
  const outside = plan.find((p) => p.name !== `${top}/` && !p.name.startsWith(`${top}/`));
  if (outside)
    throw new SkillZipError(`entry "${outside.name}" is outside the top folder "${top}/" that holds SKILL.md`);
  return top;
}

/** Streams one file out, counting the real bytes against the limits. Returns the bytes written. */
async function writeEntry(
  zip: yauzl.ZipFile,
  p: Planned,
  target: string,
  lim: Required<SkillZipLimits>,
  room: number,
): Promise<number> {
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(p.entry);
  } catch (err) {
    throw new SkillZipError(`entry "${p.name}" cannot be read: ${readerMessage((err as Error).message)}`);
  }
  // 'wx': a fresh file; an existing path (or a link someone planted) is an error, never followed or overwritten.
  const fd = openSync(target, 'wx', 0o644);
  let bytes = 0;
  try {
    await new Promise<void>((done, fail) => {
      let failed = false;
      const stop = (err: unknown) => {
        if (failed) return;
        failed = true;
        stream.destroy();
        fail(
          SkillZipError.isInstance(err)
            ? err
            : new SkillZipError(`entry "${p.name}" is damaged: ${readerMessage((err as Error).message)}`),
        );
      };
      // Stays attached after a failure: yauzl's streams may report an error more than once.
      stream.on('error', stop);
      stream.on('data', (chunk: Buffer) => {
        if (failed) return;
        bytes += chunk.length;
        try {
          if (bytes > room)
            throw new SkillZipError(
              `it unpacks to more than ${lim.maxBytes} bytes (at entry "${p.name}", whatever its header says)`,
            );
          checkRatio(p.name, bytes, p.entry.compressedSize, lim);
          writeSync(fd, chunk);
        } catch (err) {
          stop(err);
        }
      });
      stream.on('end', () => failed || done());
    });
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** yauzl's messages for the attacks it refuses itself, said the way ours are. */
function readerMessage(message: string): string {
  const abs = /^absolute path: (.*)$/.exec(message);
  if (abs) return `entry "${abs[1]}" has an absolute path`;
  const rel = /^invalid relative path: (.*)$/.exec(message);
  if (rel) return `entry "${rel[1]}" leaves the skill folder (..)`;
  return message;
}
