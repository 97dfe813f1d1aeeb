import type { Summary } from './summary.js';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const num = (x: number | null, digits = 1) => (x === null || Number.isNaN(x) ? 'n/a' : x.toFixed(digits));
const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(x < 1 ? 4 : 2)}`);
const ms = (x: number | null) =>
  x === null ? 'n/a' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`;
const cell = (s: string, max = 160) => {
  const one = s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};
const link = (dir: string | null) => (dir ? `[trace](${encodeURI(dir)})` : 'no trace');

/** Renders a summary as Markdown (report.md): headline, pass@k, costs, stop reasons, slowest and failed tasks. */
export function renderReport(s: Summary, options: { maxFailed?: number } = {}): string {
  const out: string[] = [];
  const maxFailed = options.maxFailed ?? 50;
  out.push(`# Benchmark report: ${s.suite}`, '');
  out.push(
    `- Model: ${s.model ?? '(agent default)'}; agent: ${s.agent ?? '(suite default)'}; ` +
      `epochs: ${s.epochs}${s.shard ? `; shard ${s.shard}` : ''}`,
  );
  out.push(
    `- Trials: ${s.trials} of ${s.expectedTrials} ` +
      `(${s.tasks} ${s.tasks === 1 ? 'task' : 'tasks'} ` +
      `x ${s.epochs} ${s.epochs === 1 ? 'epoch' : 'epochs'})${s.complete ? '' : `, **${s.missing} missing${s.interrupted ? ' (interrupted; run again with --resume)' : ''}**`}`,
  );
  const pr = s.passRate;
  out.push(
    `- **Pass rate: ${pct(pr.rate)}** (${pr.passed}/${pr.total}), 95% CI ${pct(pr.ci[0])} to ${pct(pr.ci[1])} (Wilson)`,
  );
  if (s.meanScore !== null) out.push(`- Mean score (reward): ${num(s.meanScore, 3)}`);
  const errs = s.errors.scorer + s.errors.setup + s.errors.run;
  if (errs)
    out.push(
      `- Errors: ${errs} (run: ${s.errors.run}, scorer: ${s.errors.scorer}, agent setup: ${s.errors.setup}); they count as fails`,
    );
  if (s.trials > 0 && errs === s.trials)
    out.push(`- **Every trial ended in an error.** First error: ${cell(s.errors.samples[0]?.error ?? 'unknown', 500)}`);
  out.push('');
  const ks = Object.keys(s.passAtK)
    .map(Number)
    .sort((a, b) => a - b);
  if (s.epochs > 1 && ks.length) {
    out.push('## pass@k and pass^k', '', '| k | pass@k | pass^k |', '|---|---|---|');
    for (const k of ks) out.push(`| ${k} | ${pct(s.passAtK[k])} | ${pct(s.passHatK[k])} |`);
    out.push('');
  }
  out.push('## Cost and time per trial', '', '| steps | tokens | cost | time |', '|---|---|---|---|');
  out.push(
    `| ${num(s.perTrial.steps)} | ${num(s.perTrial.tokens, 0)} | ${usd(s.perTrial.cost)} | ${ms(s.perTrial.durationMs)} |`,
    '',
  );
  out.push(`Totals: ${s.totals.tokens} tokens, ${usd(s.totals.cost)}, ${ms(s.totals.durationMs)} of agent time.`, '');
  out.push(
    `Per success (totals / ${s.passRate.passed} ` +
      `passed): ${s.perSuccess.tokens === null ? 'n/a' : `${num(s.perSuccess.tokens, 0)} tokens`}, ${s.perSuccess.cost === null ? (s.passRate.passed ? 'unknown cost' : 'n/a') : usd(s.perSuccess.cost)}.`,
    '',
  );
  for (const [purpose, b] of Object.entries(s.byPurpose ?? {}))
    out.push(
      `Of these, calls for "${cell(purpose)}" (not the agent's steps): ${b.modelCalls} calls, ${b.tokens} tokens, ${usd(b.cost)}.`,
      '',
    );
  if (s.scoring.modelCalls)
    out.push(
      `Scoring (LLM judge, not in the figures above): ${s.scoring.modelCalls} calls, ${s.scoring.tokens} tokens, ${usd(s.scoring.cost)}.`,
      '',
    );
  out.push('## Stop reasons', '', '| stop reason | trials |', '|---|---|');
  for (const [reason, n] of Object.entries(s.stopReasons).sort((a, b) => b[1] - a[1])) out.push(`| ${reason} | ${n} |`);
  out.push('');
  if (s.errors.samples.length) {
    out.push('## Errors (first distinct messages)', '');
    for (const e of s.errors.samples) out.push(`- ${e.taskId} (epoch ${e.epoch}, ${e.kind}): ${cell(e.error)}`);
    out.push('');
  }
  if (s.slowest.length) {
    out.push('## Slowest trials', '', '| task | epoch | time | trace |', '|---|---|---|---|');
    for (const r of s.slowest)
      out.push(`| ${cell(r.taskId)} | ${r.epoch} | ${ms(r.durationMs)} | ${link(r.traceDir)} |`);
    out.push('');
  }
  out.push(`## Failed trials (${s.failed.length})`, '');
  if (!s.failed.length) out.push('None.');
  else {
    out.push('| task | epoch | stop reason | score | why | trace |', '|---|---|---|---|---|---|');
    for (const f of s.failed.slice(0, maxFailed))
      out.push(
        `| ${cell(f.taskId)} | ${f.epoch} | ${f.stopReason} | ${num(f.score, 2)} ` +
          `| ${cell(f.error ?? f.explanation)} | ${link(f.traceDir)} |`,
      );
    if (s.failed.length > maxFailed)
      out.push('', `... and ${s.failed.length - maxFailed} more (all are in summary.json).`);
  }
  out.push('');
  if (s.warnings.length) out.push('## Warnings', '', ...s.warnings.map((w) => `- ${w}`), '');
  return out.join('\n');
}
