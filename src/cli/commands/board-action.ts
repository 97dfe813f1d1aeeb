import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { BoardIndex } from '../../server/board/board-index.js';
import { startBoard } from '../../server/board/start-board.js';
import { AppError } from '../../app/app-error.js';
import type { CliIO } from '../io.js';
import { stopSignal } from '../stop-signal.js';
import type { BoardFlags } from './command-flags.js';

/** The environment variable holding the token: the one `qitos serve` reads (the same rule for both servers). */
const TOKEN_ENV = 'QITOS_SERVE_TOKEN';

/** What `qitos board` does: index the folders, listen, and on SIGTERM or SIGINT stop (writing the index cache). */
export async function boardAction(io: CliIO, dirs: string[], flags: BoardFlags): Promise<void> {
  const roots = (dirs.length ? dirs : ['traces']).map((d) => boardRoot(io, d));
  const index = new BoardIndex(roots, {
    ...(flags.cache ? { cacheDir: boardCacheDir(io.env) } : {}),
    ...(flags.depth ? { depth: flags.depth } : {}),
  });
  const token = io.env[TOKEN_ENV] || undefined;
  const board = await startBoard({
    index,
    ...(token ? { token } : {}),
    host: flags.host,
    port: flags.port,
    ...(flags.poll ? { pollMs: flags.poll } : {}),
    ...(flags.allowedHost?.length ? { allowedHosts: flags.allowedHost } : {}),
    ...(flags.maxConnections ? { maxConnections: flags.maxConnections } : {}),
    ...(flags.headersTimeout ? { headersTimeoutMs: flags.headersTimeout } : {}),
    ...(flags.requestTimeout ? { requestTimeoutMs: flags.requestTimeout } : {}),
  }).catch((err: Error) => {
    throw new AppError(err.message);
  });
  const runs = index.rows().length;
  const benches = index.benchList().length;
  io.out(
    `qitos board: listening on ${board.url}/  ${runs} run(s), ${benches} bench folder(s) ` +
      `in ${roots.join(', ')}\nqitos ` +
      `board: ${board.authNote}${token ? `; a browser opens ${board.url}/?token=<the token> once` : ''}\n`,
  );
  const signal = await stopSignal();
  io.out(`qitos board: ${signal}: stopping\n`);
  await board.close();
}

/** A folder the board lists, as its real path (symbolic links resolved once, here); a missing one is an error. */
function boardRoot(io: CliIO, dir: string): string {
  const path = resolve(io.cwd, dir);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new AppError(`board: folder not found: ${path}`);
  return realpathSync(path);
}

/** `$XDG_CACHE_HOME/qitos/board`, else `~/.cache/qitos/board`. */
export function boardCacheDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'qitos', 'board');
}
