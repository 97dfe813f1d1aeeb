import { resolve } from 'node:path';
import { installTauData, tauDataDir } from '../../bench/tau-bench/index.js';
import { AppError } from '../../app/app-error.js';
import type { CliIO } from '../io.js';

/** What `qitos tau-bench fetch` does. */
export async function tauBenchFetchAction(io: CliIO, opts: { from?: string; dataDir?: string }): Promise<void> {
  const dataDir = tauDataDir({ dataDir: opts.dataDir && resolve(io.cwd, opts.dataDir), env: io.env });
  const from = opts.from === undefined ? undefined : resolve(io.cwd, opts.from);
  io.err(`${from ? `copying from ${from}` : 'downloading from GitHub'} into ${dataDir}\n`);
  let result;
  try {
    result = await installTauData({ from, dataDir });
  } catch (e) {
    throw AppError.of(e);
  }
  io.out(
    `installed ${result.files} files of sierra-research/tau-bench@${result.commit} (every sha256 checked) in ${result.dataDir} ` +
      `(${(result.bytes / 1e6).toFixed(1)} MB compressed)\n\nUpstream license (${result.dataDir}/LICENSE):\n\n${result.license}`,
  );
}
