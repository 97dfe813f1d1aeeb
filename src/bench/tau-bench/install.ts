import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { TAU_BENCH_COMMIT, TAU_BENCH_REPO, UPSTREAM_FILES, type UpstreamFile } from './upstream-files.js';

/** The command that installs the data, named in every "not installed" error. */
export const TAU_FETCH_COMMAND = 'npx qitos tau-bench fetch';

/**
 * Where the installed upstream files live: `dataDir`, else `$QITOS_TAU_BENCH_DATA`, else
 * `$XDG_CACHE_HOME/qitos/tau-bench/<commit>` (`~/.cache/...` without XDG_CACHE_HOME).
 */
export function tauDataDir(opts: { dataDir?: string; env?: Record<string, string | undefined> } = {}): string {
  const env = opts.env ?? process.env;
  if (opts.dataDir) return resolve(opts.dataDir);
  if (env.QITOS_TAU_BENCH_DATA) return resolve(env.QITOS_TAU_BENCH_DATA);
  const cache = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return resolve(cache, 'qitos', 'tau-bench', TAU_BENCH_COMMIT);
}

export interface InstallTauDataOptions {
  /** A local checkout of sierra-research/tau-bench (its files are read from there, no network). */
  from?: string;
  dataDir?: string;
  /** The fetch used to download raw files from GitHub when `from` is not given (default: global fetch). */
  fetch?: typeof fetch;
  /** Called after each file is stored. */
  onFile?: (file: UpstreamFile, source: string) => void;
}

export interface InstallTauDataResult {
  dataDir: string;
  commit: string;
  files: number;
  bytes: number;
  /** The upstream LICENSE text (MIT), installed beside the data. */
  license: string;
}

function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** The raw GitHub URL of an upstream file at the pinned commit. */
export function upstreamUrl(path: string): string {
  return `https://raw.githubusercontent.com/${TAU_BENCH_REPO}/${TAU_BENCH_COMMIT}/${path}`;
}

/** Where an upstream file is stored, gzip-compressed, in a data dir. */
export function storedPath(dataDir: string, path: string): string {
  return join(dataDir, 'files', `${path}.gz`);
}

/**
 * Installs the pinned upstream files into a data dir: from a local checkout (`from`) or from GitHub at the pinned
 * commit. Every file's sha256 is checked before anything is stored (a mismatch names the file and both hashes);
 * files are stored gzip-compressed, the LICENSE also as plain text, and a manifest last.
 */
export async function installTauData(opts: InstallTauDataOptions = {}): Promise<InstallTauDataResult> {
  const dataDir = tauDataDir({ dataDir: opts.dataDir });
  const doFetch = opts.fetch ?? globalThis.fetch;
  const contents: [UpstreamFile, Buffer][] = [];
  for (const file of UPSTREAM_FILES) {
    let buf: Buffer;
    let source: string;
    if (opts.from !== undefined) {
      source = join(resolve(opts.from), file.path);
      try {
        buf = await readFile(source);
      } catch (e) {
        throw new Error(
          `tau-bench: cannot read ${file.path} from ${resolve(opts.from)} ` +
            `(${(e as Error).message}); --from must be a checkout of ${TAU_BENCH_REPO} ` +
            `at ${TAU_BENCH_COMMIT}`,
        );
      }
    } else {
      source = upstreamUrl(file.path);
      let res: Response;
      try {
        res = await doFetch(source);
      } catch (e) {
        throw new Error(`tau-bench: download of ${source} failed: ${(e as Error).message}`);
      }
      if (!res.ok) throw new Error(`tau-bench: download of ${source} failed: HTTP ${res.status}`);
      buf = Buffer.from(await res.arrayBuffer());
    }
    const actual = sha256(buf);
    if (actual !== file.sha256) {
      throw new Error(
        `tau-bench: ${file.path} does not match the pinned file: expected sha256 ${file.sha256}, got ${actual} (from ${source})`,
      );
    }
    contents.push([file, buf]);
    opts.onFile?.(file, source);
  }
  let bytes = 0;
  for (const [file, buf] of contents) {
    const target = storedPath(dataDir, file.path);
    await mkdir(dirname(target), { recursive: true });
    const gz = gzipSync(buf, { level: 9 });
    bytes += gz.length;
    await writeFile(`${target}.tmp`, gz);
    await rename(`${target}.tmp`, target);
  }
  const license = contents[0]![1].toString('utf8');
  await writeFile(join(dataDir, 'LICENSE'), license);
  const manifest = { repo: TAU_BENCH_REPO, commit: TAU_BENCH_COMMIT, files: UPSTREAM_FILES };
  await writeFile(join(dataDir, 'manifest.json.tmp'), JSON.stringify(manifest, null, 2) + '\n');
  await rename(join(dataDir, 'manifest.json.tmp'), join(dataDir, 'manifest.json'));
  return { dataDir, commit: TAU_BENCH_COMMIT, files: contents.length, bytes, license };
}

/** True when a data dir holds an installed copy (its manifest names the pinned commit). */
export function tauDataInstalled(dataDir: string): boolean {
  const manifest = join(dataDir, 'manifest.json');
  if (!existsSync(manifest)) return false;
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { commit?: string }).commit === TAU_BENCH_COMMIT;
  } catch {
    return false;
  }
}

/**
 * Reads one installed upstream file as text, re-checking its sha256. A missing data dir or file says the command
 * that installs it.
 */
export function readUpstreamFile(dataDir: string, path: string): string {
  const file = UPSTREAM_FILES.find((f) => f.path === path);
  if (!file) throw new Error(`tau-bench: ${path} is not one of the pinned upstream files`);
  const stored = storedPath(dataDir, path);
  if (!tauDataInstalled(dataDir) || !existsSync(stored)) {
    throw new Error(
      `tau-bench data is not installed in ${dataDir} (missing ${path}). Install it with: ${TAU_FETCH_COMMAND}` +
        (dataDir === tauDataDir() ? '' : ` --data-dir ${dataDir}`),
    );
  }
  const buf = gunzipSync(readFileSync(stored));
  const actual = sha256(buf);
  if (actual !== file.sha256) {
    throw new Error(
      `tau-bench: installed ${path} is corrupt: expected sha256 ${file.sha256}, got ${actual}. Reinstall with: ${TAU_FETCH_COMMAND}`,
    );
  }
  return buf.toString('utf8');
}
