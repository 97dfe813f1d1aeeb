import { resolve } from 'node:path';
import {
  flattenSettings,
  settingDifferences,
  totalTokens,
  type Manifest,
  type SettingDifference,
} from '../../core/index.js';
import { readManifest } from '../../trace/trace-reader.js';
import { manifestSettings } from '../../app/run-settings.js';
import { loadTrace } from '../../app/trace-loader.js';
import { fmtCost, fmtMs, preview, variantText } from '../../app/text-format.js';
import type { CliIO } from '../io.js';
import { terminalText } from '../../app/terminal-text.js';

/** What `qitos inspect` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function inspectAction(io: CliIO, path: string, opts: { json?: boolean }): Promise<void> {
  const trace = await loadTrace(io, path);
  const m = trace.manifest;
  const stepErrors = trace.steps.filter((s) => s.error).map((s) => ({ step: s.step, ...s.error! }));
  const failures = m.summary?.failures ?? [];
  const settings = manifestSettings(m);
  const variant = await parentVariant(m, settings, io.cwd);
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
    settings,
    variant,
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
    `settings  ${
      variantText(
        flattenSettings(settings)
          .filter((x) => !/^(module|components)\./.test(x.path))
          .map((x) => ({ path: x.path, from: undefined, to: x.value })),
      ) || '- (none recorded besides the agent)'
    }`,
    ...(m.agent.sha256 ? [`module    sha256 ${m.agent.sha256}`] : []),
    ...(variant
      ? [
          `variant   vs parent ${variant.against}: ${variant.differences.length ? variantText(variant.differences) : 'same settings'}`,
        ]
      : []),
    ...(m.parent
      ? [
          `parent    ${m.parent.kind} ` +
            `of ${m.parent.runId}${m.parent.atStep !== undefined ? ` at step ${m.parent.atStep}` : ''}${m.parent.depth ? `, depth ${m.parent.depth}` : ''} ` +
            `(${m.parent.path ?? 'not traced'})`,
        ]
      : []),
  ];
  if (s) {
    lines.push(
      `stop      ${s.stopReason}${s.message ? `: ${s.message}` : ''}`,
      `final     ${s.finalResult === null ? '-' : preview(s.finalResult, 100)}`,
      `steps     ${s.steps} (${trace.steps.length} recorded)`,
      `usage     ${totalTokens(s.usage.tokens)} tokens (in ${s.usage.tokens.input}, ` +
        `out ${s.usage.tokens.output}, ` +
        `reasoning ${s.usage.tokens.reasoning}), ${s.usage.modelCalls} model calls, ` +
        `cost ${fmtCost(s.usage.cost)}`,
      `time      ${fmtMs(s.durationMs)}`,
    );
  } else {
    lines.push(`stop      - (the run did not finish; ${trace.steps.length} steps recorded)`);
  }
  if (m.artifacts?.length)
    lines.push(`artifacts ${m.artifacts.map((a) => `artifacts/${a.name} (${a.bytes} bytes)`).join(', ')}`);
  lines.push(failures.length ? `failures  ${failures.length}` : 'failures  none');
  for (const f of failures)
    lines.push(`  step ${f.step}  ${f.kind}${f.fatal ? ' (fatal)' : ''}: ${preview(f.message, 120)}`);
  io.out(lines.map((l) => terminalText(l)).join('\n') + '\n');
}

/**
 * A fork's or replay's variant: how its settings differ from its parent run's, when the parent's trace can still be
 * read (undefined otherwise, and for a run without a parent).
 */
async function parentVariant(
  m: Manifest,
  settings: Record<string, unknown>,
  cwd: string,
): Promise<{ against: string; differences: SettingDifference[] } | undefined> {
  if (!m.parent?.path || m.parent.kind === 'subtask') return undefined;
  try {
    const parent = await readManifest(resolve(cwd, m.parent.path));
    return { against: parent.runId, differences: settingDifferences(manifestSettings(parent), settings) };
  } catch {
    return undefined; // moved or deleted: the parent line still names it
  }
}
