import { resolve } from 'node:path';
import { listRuns } from '../../app/run-listing.js';
import { fmtCost, preview, table, variantText } from '../../app/text-format.js';
import type { CliIO } from '../io.js';

/** What `qitos runs` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function runsAction(io: CliIO, dir: string, opts: { json?: boolean }): Promise<void> {
  const root = resolve(io.cwd, dir);
  const { rows, skipped } = await listRuns(root);
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
      [
        'RUN',
        'AGENT',
        'MODEL',
        'STATUS',
        'STOP',
        'STEPS',
        'TOKENS',
        'COST',
        'DATE',
        'VARIANT (vs the earlier run of its agent)',
      ],
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
        r.variant === null
          ? '-'
          : r.variant.differences.length
            ? preview(variantText(r.variant.differences), 70)
            : 'same',
      ]),
    ),
  );
}
