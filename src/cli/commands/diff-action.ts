import type { CliIO } from '../io.js';
import { loadTrace } from '../../app/trace-loader.js';
import { diffTraces, type RunTotals, type TextDiff, type TraceDiff } from '../../trace/index.js';
import { fmtCost, fmtMs, preview, table } from '../../app/text-format.js';
import type { DiffFlags } from './command-flags.js';

/** What `qitos diff` does (loaded when the command runs). */
export async function diffAction(io: CliIO, pathA: string, pathB: string, flags: DiffFlags): Promise<void> {
  const [a, b] = [await loadTrace(io, pathA), await loadTrace(io, pathB)];
  const diff = diffTraces(a, b);
  if (flags.json) io.out(JSON.stringify({ a: a.dir, b: b.dir, ...diff }, null, 2) + '\n');
  else io.out(renderDiff(diff, flags));
  if (flags.exitCode && !diff.same) io.exitCode = 1;
}

/** The text report of a diff. */
export function renderDiff(diff: TraceDiff, flags: Pick<DiffFlags, 'all' | 'limit'>): string {
  const { a, b } = diff.totals;
  const out: string[] = [
    `A  ${a.runId}  ${a.model ?? '-'}  ${a.steps} steps`,
    `B  ${b.runId}  ${b.model ?? '-'}  ${b.steps} steps`,
    '',
  ];
  const inherited = diff.steps.filter((s) => s.inherited).length;
  if (inherited) out.push(`one run is a fork of the other: ${inherited} step(s) before the fork point are shared`);
  if (diff.initialStateDiffers) out.push('the runs start from different states');
  if (diff.first)
    out.push(
      `first difference: step ${diff.first.step}, ${diff.first.phase.replace('_', ' ')}: ${preview(diff.first.detail, 160)}`,
    );
  else
    out.push(
      diff.same
        ? `no difference in ${diff.steps.length} aligned steps`
        : `steps agree; the runs end differently (${a.stopReason} vs ${b.stopReason})`,
    );
  const rows = diff.steps.filter((s) => flags.all || s.phases.length);
  if (rows.length) {
    out.push('');
    const shown = rows.slice(0, flags.limit);
    const t = table(
      ['STEP', 'A', 'B', 'DIFFERS'],
      shown.map((s) => [
        String(s.step),
        preview(s.a ?? '(none)', 40),
        preview(s.b ?? '(none)', 40),
        s.phases
          .map((p) => (p === 'model_input' && s.modelInput ? `model_input(${s.modelInput.join(',')})` : p))
          .join(', ') || '-',
      ]),
    );
    out.push(t.trimEnd());
    if (rows.length > shown.length) out.push(`… ${rows.length - shown.length} more rows (--limit, --json)`);
  }
  for (const t of diff.texts) out.push('', ...textDiffLines(t));
  out.push('', table(['', 'A', 'B'], totalsRows(a, b)).trimEnd());
  return out.join('\n') + '\n';
}

/** Most lines of one text diff printed (the JSON output has it whole). */
const MAX_DIFF_LINES = 200;

/** A differing prompt, tool spec list or config: a heading with the hashes, then the unified diff (or why there is none). */
export function textDiffLines(t: TextDiff): string[] {
  const where = t.step === undefined ? '' : ` at step ${t.step}`;
  const lines = [
    `${t.kind} ${t.kind === 'tool specs' ? 'differ' : 'differs'}${where} (A ${t.hashA ?? '-'}, B ${t.hashB ?? '-'}):`,
  ];
  if (t.diff === null) return [...lines, `  ${t.note ?? 'no text to compare'}`];
  const body = t.diff.trimEnd().split('\n');
  lines.push(...body.slice(0, MAX_DIFF_LINES));
  if (body.length > MAX_DIFF_LINES)
    lines.push(`… ${body.length - MAX_DIFF_LINES} more diff lines (--json has them all)`);
  return lines;
}

function totalsRows(a: RunTotals, b: RunTotals): string[][] {
  return [
    ['steps', String(a.steps), String(b.steps)],
    ['tokens', String(a.tokens), String(b.tokens)],
    ['cost', fmtCost(a.cost), fmtCost(b.cost)],
    ['time', fmtMs(a.durationMs ?? undefined), fmtMs(b.durationMs ?? undefined)],
    ['stop', a.stopReason ?? '-', b.stopReason ?? '-'],
    ['final', preview(a.finalResult ?? '-', 40), preview(b.finalResult ?? '-', 40)],
    ['model', a.model ?? '-', b.model ?? '-'],
  ];
}
