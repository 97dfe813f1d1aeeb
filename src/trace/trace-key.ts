import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TraceError } from './trace-reader.js';

/**
 * Where this user's trace key lives: `$XDG_CONFIG_HOME/qitos/trace-key`, else `$HOME/.config/qitos/trace-key`;
 * undefined when the environment names neither (then runs are not signed and no trace counts as this machine's).
 */
export function traceKeyPath(env: Record<string, string | undefined>): string | undefined {
  const base = env.XDG_CONFIG_HOME || (env.HOME ? join(env.HOME, '.config') : undefined);
  return base ? join(base, 'qitos', 'trace-key') : undefined;
}

/**
 * The key that signs the manifests this user writes: pass it as `TraceOptions.signingKey` (the CLI does for every
 * run), and `qitos replay` / `fork` trust the trace. `create`: made on first use, 32 random bytes in hex, mode
 * 0600 in a 0700 folder; without it, a missing key is undefined (nothing was signed with it). A key others can
 * read could sign a forged trace, so one with group or other permissions is refused (TraceError).
 */
export async function loadTraceKey(
  env: Record<string, string | undefined>,
  opts: { create?: boolean } = {},
): Promise<Uint8Array | undefined> {
  const path = traceKeyPath(env);
  if (!path) return undefined;
  const existing = await readKey(path);
  if (existing || !opts.create) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // `wx`: two commands creating it at once keep the first one's key (the loser reads it back).
  await writeFile(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' }).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw new TraceError(`cannot create the trace key ${path}: ${err.message}`);
    },
  );
  return readKey(path);
}

async function readKey(path: string): Promise<Uint8Array | undefined> {
  const st = await stat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new TraceError(`cannot read the trace key ${path}: ${err.message}`);
  });
  if (!st) return undefined;
  if (!st.isFile()) throw new TraceError(`the trace key ${path} is not a file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new TraceError(
      `the trace key ${path} can be read by other users (mode ${(st.mode & 0o777).toString(8)}): run chmod 600 ${path}`,
    );
  }
  const text = (await readFile(path, 'utf8')).trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new TraceError(
      `the trace key ${path} is not 64 hex digits: delete it and qitos makes a new one (traces ` +
        `signed with the old key then count as from elsewhere)`,
    );
  return Buffer.from(text, 'hex');
}
