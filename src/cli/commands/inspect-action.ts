import { totalTokens } from '../../core/index.js';
import { loadTrace } from '../trace-loader.js';
import { fmtCost, fmtMs, preview } from '../text-format.js';
import type { CliIO } from '../io.js';

/** What `qitos inspect` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function inspectAction(io: CliIO, path: string, opts: { json?: boolean }): Promise<void> {
  const trace = await loadTrace(io, path);
  const m = trace.manifest;
  const stepErrors = trace.steps.filter((s) => s.error).map((s) => ({ step: s.step, ...s.error! }));
  const failures = m.summary?.failures ?? [];
  const data = {
    dir: trace.dir,
    runId: m.runId,
    status: m.status,
    createdAt: m.createdAt,
    agent: m.agent,
    model: m.model,
    task: { id: m.task.id, objective: m.task.objective },
    parser: m.parser,
    tools: m.tools,
    policies: m.policies,
    budget: m.budget,
    env: m.env,
    parent: m.parent,
    hashes: m.hashes,
    summary: m.summary,
    artifacts: m.artifacts ?? [],
    stepsRecorded: trace.steps.length,
    failures,
    stepErrors,
    warnings: trace.warnings,
  };
  if (opts.json) {
    io.out(JSON.stringify(data, null, 2) + '\n');
    return;
  }
  const s = m.summary;
  const lines = [
    `run       ${m.runId}  (${m.status})`,
    `created   ${m.createdAt}`,
    `agent     ${m.agent.name}${m.agent.module ? `  from ${m.agent.module}${m.agent.export ? `#${m.agent.export}` : ''}` : ''}`,
    `model     ${m.model?.id ?? '-'}${m.parser ? `  parser ${m.parser}` : ''}`,
    `task      ${preview(m.task.objective, 100)}`,
    `tools     ${m.tools.join(', ') || '-'}`,
    `policies  ${m.policies.join(', ') || '-'}`,
    ...(m.parent ? [`parent    ${m.parent.kind} of ${m.parent.runId}${m.parent.atStep !== undefined ? ` at step ${m.parent.atStep}` : ''}${m.parent.depth ? `, depth ${m.parent.depth}` : ''} (${m.parent.path ?? 'not traced'})`] : []),
  ];
  if (s) {
    lines.push(
      `stop      ${s.stopReason}${s.message ? `: ${s.message}` : ''}`,
      `final     ${s.finalResult === null ? '-' : preview(s.finalResult, 100)}`,
      `steps     ${s.steps} (${trace.steps.length} recorded)`,
      `usage     ${totalTokens(s.usage.tokens)} tokens (in ${s.usage.tokens.input}, out ${s.usage.tokens.output}, reasoning ${s.usage.tokens.reasoning}), ${s.usage.modelCalls} model calls, cost ${fmtCost(s.usage.cost)}`,
      `time      ${fmtMs(s.durationMs)}`,
    );
  } else {
    lines.push(`stop      - (the run did not finish; ${trace.steps.length} steps recorded)`);
  }
  if (m.artifacts?.length) lines.push(`artifacts ${m.artifacts.map((a) => `artifacts/${a.name} (${a.bytes} bytes)`).join(', ')}`);
  lines.push(failures.length ? `failures  ${failures.length}` : 'failures  none');
  for (const f of failures) lines.push(`  step ${f.step}  ${f.kind}${f.fatal ? ' (fatal)' : ''}: ${preview(f.message, 120)}`);
  io.out(lines.join('\n') + '\n');
}
