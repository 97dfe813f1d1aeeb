import { resolve } from 'node:path';
import { totalTokens } from '../../core/index.js';
import { findRuns } from '../trace-loader.js';
import { fmtCost, table } from '../text-format.js';
import type { CliIO } from '../io.js';

/** What `qitos runs` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function runsAction(io: CliIO, dir: string, opts: { json?: boolean }): Promise<void> {
  const root = resolve(io.cwd, dir);
  const { runs, skipped } = await findRuns(root);
  const rows = runs.map(({ dir: d, manifest: m }) => ({
    runId: m.runId,
    path: d,
    agent: m.agent.name,
    model: m.model?.id ?? null,
    status: m.status,
    stopReason: m.summary?.stopReason ?? null,
    steps: m.summary?.steps ?? null,
    tokens: m.summary ? totalTokens(m.summary.usage.tokens) : null,
    cost: m.summary ? m.summary.usage.cost : null,
    createdAt: m.createdAt,
    parent: m.parent,
  }));
  for (const s of skipped) io.err(`warning: skipped ${s}\n`);
  if (opts.json) {
    io.out(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  if (!rows.length) {
    io.out(`no runs in ${root}\n`);
    return;
  }
  io.out(
    table(
      ['RUN', 'AGENT', 'MODEL', 'STATUS', 'STOP', 'STEPS', 'TOKENS', 'COST', 'DATE'],
      rows.map((r) => [
        r.runId + (r.parent ? ` (${r.parent.kind})` : ''),
        r.agent,
        r.model ?? '-',
        r.status,
        r.stopReason ?? '-',
        r.steps === null ? '-' : String(r.steps),
        r.tokens === null ? '-' : String(r.tokens),
        r.cost === null ? '?' : fmtCost(r.cost),
        r.createdAt.replace('T', ' ').slice(0, 19),
      ]),
    ),
  );
}
