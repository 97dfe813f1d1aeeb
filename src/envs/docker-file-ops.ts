import path from 'node:path';
import type { FileOps, FileStat } from '../core/index.js';
import { EnvError } from '../core/index.js';
import type { DockerCli } from './docker-cli.js';
import { firstLines } from './docker-cli.js';
import { fsError } from './fs-error.js';
import { compileGlob } from './glob-pattern.js';
import { walkGlob, type WalkEntry } from './glob-walk.js';
import { resolveLexical } from './path-jail.js';

const posix = path.posix;

/** Where file and process ops of a DockerEnv act: the CLI, the container (once started), the workspace folder in it. */
export interface DockerTarget {
  readonly cli: DockerCli;
  container(): string;
  readonly workdir: string;
  /** Timeout of one file op, ms. */
  readonly opTimeoutMs: number;
}

// Each op is one `docker exec ... sh -c <script> sh <args>`: the scripts are constants and paths travel as arguments
// (always `./relative`, so never an option), so no path or content is ever parsed by a shell. Exit codes 20-22 carry
// the errors the host file ops name (ENOENT, EISDIR, ENOTDIR).
// `gone` exits 22 (ENOTDIR) when a parent of the missing path is a file, else 20 (ENOENT), as the host's errors say.
const GONE =
  'gone() { d=$(dirname "$1"); while [ "$d" != . ]; do if [ -e "$d" ]; then [ -d "$d" ] && ' +
  'exit 20; exit 22; fi; d=$(dirname "$d"); done; exit 20; }; ';
const READ = GONE + '[ -d "$1" ] && exit 21; [ -e "$1" ] || gone "$1"; exec cat "$1"';
const WRITE = '[ -d "$1" ] && exit 21; mkdir -p "$(dirname "$1")" 2>/dev/null || exit 22; exec cat > "$1"';
const STAT = GONE + '[ -e "$1" ] || [ -L "$1" ] || gone "$1"; stat -c "%F|%s|%Y" "$1"';
const LIST =
  GONE +
  '[ -e "$1" ] || gone "$1"; [ -d "$1" ] || exit 22; cd "$1" || exit 20; ' +
  'for f in * .*; do case "$f" in .|..) continue;; esac; [ -e "$f" ] || [ -L "$f" ] || ' +
  'continue; stat -c "%F|%s|%Y|%n" "./$f"; printf "\\0"; done';
const REMOVE =
  GONE +
  '[ -e "$1" ] || [ -L "$1" ] || gone "$1"; if [ -d "$1" ] && [ ! -L "$1" ]; then [ "$2" = ' +
  'r ] || exit 21; exec rm -rf "$1"; fi; exec rm -f "$1"';
// The whole tree below a folder, in three NUL-separated sections (folders, symlinks, other entries) ended by "#" records
// (a path always starts with "./", so "#" is never one). Folders named in the remaining arguments are pruned.
const TREE =
  'cd "$1" || exit 20; shift; n=$#; for x do set -- "$@" -o -name "$x"; done; shift $n; shift; ' +
  'find . -mindepth 1 \\( "$@" \\) -prune -o -type d -print0; printf "#\\0"; ' +
  'find . -mindepth 1 \\( "$@" \\) -prune -o -type l -print0; printf "#\\0"; ' +
  'find . -mindepth 1 \\( "$@" \\) -prune -o ! -type d ! -type l -print0; printf "#\\0"';
const CODES: Record<number, string> = { 20: 'ENOENT', 21: 'EISDIR', 22: 'ENOTDIR' };
const TREE_CAP = 32 * 1024 * 1024;

/**
 * File ops inside a container's workspace folder, through `docker exec`. Paths are resolved lexically against the
 * workspace (`..` may not leave it); the container is the sandbox, so a symlink inside it is the container's
 * business. Error messages are the host file ops' (`cannot read "x": no such file or folder`).
 */
export class DockerFileOps implements FileOps {
  constructor(
    private readonly target: DockerTarget,
    private readonly ignoreDirs: ReadonlySet<string>,
  ) {}

  get root(): string {
    return this.target.workdir;
  }

  async readBytes(p: string): Promise<Uint8Array> {
    const rel = this.rel(p);
    return new Uint8Array(await this.exec(READ, [rel], 'read', rel));
  }

  async readText(p: string): Promise<string> {
    return new TextDecoder('utf-8').decode(await this.readBytes(p));
  }

  async writeText(p: string, content: string): Promise<void> {
    if (typeof content !== 'string') throw new EnvError(`content to write must be a string, got ${typeof content}`);
    const rel = this.rel(p);
    if (rel === '.') throw fsError(errno('EISDIR'), '.', 'write');
    await this.exec(WRITE, [rel], 'write', rel, content);
  }

  async list(p: string): Promise<FileStat[]> {
    const rel = this.rel(p);
    const out = (await this.exec(LIST, [rel], 'list', rel)).toString('utf8');
    return out
      .split('\n\0')
      .filter(Boolean)
      .map((rec) => {
        const [type, size, mtime, ...name] = rec.split('|');
        return toStat(posix.join(show(rel), name.join('|').replace(/^\.\//, '')), type, size, mtime);
      })
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const rel = this.rel(p);
    const r = await this.run(STAT, [rel]);
    if (r.exitCode === 20 || r.exitCode === 22) return undefined;
    if (r.exitCode !== 0) throw this.failure(r, 'stat', rel);
    const [type, size, mtime] = r.stdout.toString('utf8').trim().split('|');
    return toStat(show(rel), type, size, mtime);
  }

  async glob(pattern: string, options: { cwd?: string; limit?: number } = {}): Promise<string[]> {
    const matcher = compileGlob(pattern);
    const cwd = this.rel(options.cwd ?? '.');
    // Ignored folders are pruned in the container unless the pattern names them; dot folders unless it has dots.
    const prune = [...this.ignoreDirs].filter((d) => !matcher.literals.has(d));
    if (!matcher.dotted) prune.push('.*');
    const r = await this.run(TREE, [cwd, ...prune, ''], TREE_CAP);
    if (r.truncated)
      throw new EnvError(
        `cannot search "${show(cwd)}": it holds too many files to list ` +
          `(over ${TREE_CAP / 1024 / 1024} MiB of names); search a smaller folder`,
      );
    if (r.exitCode !== 0) throw this.failure(r, 'search', cwd);
    const tree = treeOf(r.stdout.toString('utf8'));
    const list = async (relDir: string): Promise<WalkEntry[]> => tree.get(relDir) ?? [];
    const found = await walkGlob(matcher, list, { limit: options.limit, ignore: this.ignoreDirs });
    return cwd === '.' ? found : found.map((f) => `${show(cwd)}/${f}`);
  }

  async remove(p: string, options: { recursive?: boolean } = {}): Promise<void> {
    const rel = this.rel(p);
    if (rel === '.') throw new EnvError('cannot remove ".": it is the workspace root folder');
    const r = await this.run(REMOVE, [rel, options.recursive ? 'r' : '-']);
    if (r.exitCode === 21)
      throw new EnvError(`cannot remove "${show(rel)}": it is a folder; pass recursive to remove it with its contents`);
    if (r.exitCode !== 0) throw this.failure(r, 'remove', rel);
  }

  /** `./relative` of a path inside the workspace (lexical jail), or `.` for the root. */
  private rel(p: string): string {
    const abs = resolveLexical(this.target.workdir, p, posix);
    const rel = posix.relative(this.target.workdir, abs);
    return rel === '' ? '.' : `./${rel}`;
  }

  private async exec(script: string, args: string[], action: string, rel: string, input?: string): Promise<Buffer> {
    const r = await this.run(script, args, undefined, input);
    if (r.exitCode !== 0) throw this.failure(r, action, rel);
    return r.stdout;
  }

  private run(script: string, args: string[], maxOutputBytes?: number, input?: string) {
    const { cli, workdir, opTimeoutMs } = this.target;
    const execArgs = [
      'exec',
      ...(input !== undefined ? ['-i'] : []),
      '-w',
      workdir,
      this.target.container(),
      'sh',
      '-c',
      script,
      'sh',
      ...args,
    ];
    return cli.run(execArgs, {
      timeoutMs: opTimeoutMs,
      ...(maxOutputBytes ? { maxOutputBytes } : {}),
      ...(input !== undefined ? { input } : {}),
    });
  }

  private failure(
    r: { exitCode: number | null; timedOut: boolean; stderr: Buffer },
    action: string,
    rel: string,
  ): EnvError {
    const code = r.exitCode !== null ? CODES[r.exitCode] : undefined;
    if (code) return fsError(errno(code), show(rel), action);
    if (r.timedOut)
      return new EnvError(
        `cannot ${action} "${show(rel)}": docker exec did not finish within ${this.target.opTimeoutMs} ms`,
      );
    const msg = firstLines(r.stderr);
    if (/permission denied/i.test(msg)) return fsError(errno('EACCES'), show(rel), action);
    return new EnvError(`cannot ${action} "${show(rel)}": ${msg || `docker exec exited ${r.exitCode}`}`);
  }
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

function show(rel: string): string {
  return rel === '.' ? '.' : rel.replace(/^\.\//, '');
}

function toStat(p: string, type: string, size: string, mtime: string): FileStat {
  const t = type === 'directory' ? 'directory' : type === 'symbolic link' ? 'symlink' : 'file';
  return { path: p, type: t, size: t === 'directory' ? 0 : Number(size) || 0, mtimeMs: (Number(mtime) || 0) * 1000 };
}

/** Folder (relative, `/`-joined, '' for the top) -> its entries, from the TREE script's output. */
function treeOf(out: string): Map<string, WalkEntry[]> {
  const sections: string[][] = [[]];
  for (const rec of out.split('\0')) {
    if (rec === '#') sections.push([]);
    else if (rec) sections[sections.length - 1].push(rec.replace(/^\.\//, ''));
  }
  const tree = new Map<string, WalkEntry[]>();
  const kinds: Array<WalkEntry['kind']> = ['directory', 'symlink', 'file'];
  kinds.forEach((kind, i) => {
    for (const p of sections[i] ?? []) {
      const dir = posix.dirname(p) === '.' ? '' : posix.dirname(p);
      const list = tree.get(dir) ?? [];
      list.push({ name: posix.basename(p), kind });
      tree.set(dir, list);
    }
  });
  return tree;
}
