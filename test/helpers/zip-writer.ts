/**
 * Writes ZIP archives byte by byte, for tests of the skill installer: well-formed skill ZIPs from folders, and
 * hand-crafted malicious ones that no ordinary zip tool would make (zip-slip names, absolute paths, symbolic
 * links, device files, lying size headers, encrypted flags, zip bombs). Only the stored and deflate methods;
 * no ZIP64.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a hand-made ZIP. */
export interface ZipEntry {
  name: string;
  data?: Buffer | string;
  /** Default deflate for files, store for folders (names ending in `/`). */
  method?: 'store' | 'deflate';
  /** Unix mode (type and permission bits), written as a Unix archiver writes it. */
  mode?: number;
  /** Uncompressed size written in the headers instead of the real one (a lying header). */
  declaredSize?: number;
  /** Sets the "encrypted" flag. */
  encrypted?: boolean;
}

/** The bytes of a ZIP with these entries, in order. */
export function makeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const raw = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '', 'utf8');
    const method = e.method ?? (e.name.endsWith('/') ? 'store' : 'deflate');
    const body = method === 'deflate' ? deflateRawSync(raw) : raw;
    const size = e.declaredSize ?? raw.length;
    const flags = (e.encrypted ? 1 : 0) | (/[^\x20-\x7e]/.test(e.name) ? 0x800 : 0);
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method === 'deflate' ? 8 : 0, 8);
    local.writeUInt32LE(0, 10); // DOS time and date
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(e.mode !== undefined ? (3 << 8) | 20 : 20, 4); // made by: Unix when a mode is given
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method === 'deflate' ? 8 : 0, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(0, 30); // extra and comment lengths
    central.writeUInt32LE(0, 34); // disk number and internal attributes
    central.writeUInt32LE(e.mode !== undefined ? (e.mode << 16) >>> 0 : e.name.endsWith('/') ? 0x10 : 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A ZIP of a folder's files (sorted), under `prefix` (e.g. `"theme-factory/"`, or `""` for the root). */
export function zipFolder(dir: string, prefix = ''): Buffer {
  const entries: ZipEntry[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        entries.push({ name: prefix + relative(dir, p).split('\\').join('/'), data: readFileSync(p), mode: 0o100644 });
    }
  };
  walk(dir);
  return makeZip(entries);
}

/** The text of a SKILL.md with this name and description. */
export function skillMd(name: string, description: string, body = '# Instructions\n'): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n${body}`;
}
