import { resolve } from 'node:path';
import type { Approver, Hook, Model } from '../../core/index.js';
import {
  WorkflowError,
  forkWorkflow,
  llmNodeModelId,
  loadWorkflowFile,
  resumeWorkflow,
  runWorkflow,
  waitingAskAnswer,
  type WorkflowDefinition,
} from '../../kit/workflow/index.js';
import { ttyApprover } from '../tty-approver.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { TraceError } from '../../trace/index.js';
import { commandTelemetry } from '../../app/telemetry-setup.js';
import { AppError } from '../../app/app-error.js';
import { effectiveConfig } from '../../app/effective-config.js';
import { EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED } from '../../app/exit-codes.js';
import type { CliIO } from '../io.js';
import { resolveModel } from '../../app/model-resolver.js';
import { configuredEngine, configuredModel } from '../../app/build-engine.js';
import { workflowTools } from '../../app/workflow-tools.js';
import type { WorkflowCheckFlags, WorkflowRunFlags } from './command-flags.js';

/** What `qitos workflow check` does: parse and check, print `ok` or every problem (exit 2). */
export async function workflowCheckAction(io: CliIO, file: string, flags: WorkflowCheckFlags): Promise<void> {
  try {
    const def = await loadWorkflowFile(file, io.cwd);
    if (flags.json)
      io.out(JSON.stringify({ ok: true, name: def.name, nodes: def.nodes.size, edges: def.edges.length }) + '\n');
    else io.out(`ok: ${def.name}: ${def.nodes.size} nodes, ${def.edges.length} edges\n`);
  } catch (err) {
    if (!WorkflowError.isInstance(err)) throw err;
    if (flags.json)
      io.out(
        JSON.stringify({
          ok: false,
          error: err.message,
          ...(err.line !== undefined ? { line: err.line, column: err.column } : {}),
          ...(err.nodeId ? { node: err.nodeId } : {}),
        }) + '\n',
      );
    io.err(`qitos: ${err.message}\n`);
    io.exitCode = EXIT_BAD_INPUT;
  }
}

/** What `qitos workflow resume` does: like run, from the trace's last recorded step (no completed node runs again). */
export async function workflowResumeAction(
  io: CliIO,
  trace: string,
  file: string,
  flags: WorkflowRunFlags,
): Promise<void> {
  await workflowRunAction(io, file, flags, { trace: resolve(io.cwd, trace) });
}

/** What `qitos workflow fork` does: like run, from just before a recorded visit of a node. */
export async function workflowForkAction(
  io: CliIO,
  trace: string,
  file: string,
  flags: WorkflowRunFlags & { at: string },
): Promise<void> {
  const m = /^([^@]+)(?:@([1-9][0-9]*))?$/.exec(flags.at);
  if (!m) throw new AppError(`--at: expected <node> or <node>@<visit>, got "${flags.at}"`);
  await workflowRunAction(io, file, flags, {
    trace: resolve(io.cwd, trace),
    at: { node: m[1], visit: m[2] ? Number(m[2]) : 1 },
  });
}

/** What `qitos workflow run` does: load, build model and tools, run with a trace, print how it ended. */
export async function workflowRunAction(
  io: CliIO,
  file: string,
  flags: WorkflowRunFlags,
  from?: { trace: string; at?: { node: string; visit: number } },
): Promise<void> {
  const def = await loadWorkflowFile(file, io.cwd).catch((err: unknown) => {
    throw WorkflowError.isInstance(err) ? new AppError(err.message.split('\n').join(' ')) : err;
  });
  // `workflow:` is recorded even when empty: it tells a replay that the engine: budget did not apply (runs before it did).
  const config = await effectiveConfig({}, flags, io.cwd).then((c) => ({ ...c, workflow: c.workflow ?? {} }));
  const model = await configuredModel(config, io.cwd, io.env);
  const llm = [...def.nodes.values()].filter((n) => n.kind === 'llm');
  if (!model && llm.length)
    throw new AppError(`--model is required: the workflow has LLM nodes (${llm.map((n) => n.id).join(', ')})`);
  // The engine the config describes, as for every front end (a workflow takes the workflow: budget).
  const c = configuredEngine(config, io.cwd, 'workflow');
  const env = c.env();
  const tools = await workflowTools(io, flags.tools, env !== undefined);
  const nodeModels = await modelsOfNodes(def, io);
  const signingKey = await loadTraceKey(io.env, { create: true });
  const telemetry = await commandTelemetry(io, config);
  let result;
  try {
    const options = {
      ...(model ? { model } : {}),
      tools,
      vars: flags.var,
      ...(env ? { env } : {}),
      budget: c.budget,
      ...(nodeModels.size ? { resolveModel: (id: string) => nodeModels.get(id)! } : {}),
      handleSigint: true,
      ...(flags.json ? {} : { hooks: [streamedNodes(io)] }),
      // the run's settings as `qitos run` records them (a replay rebuilds its env, budget and trace folder from them)
      trace: {
        dir: c.traceDir,
        config: c.recorded,
        ...(signingKey ? { signingKey } : {}),
        ...(telemetry ? { tap: telemetry } : {}),
      },
      config: { file: resolve(io.cwd, file) },
      ...(c.permission !== undefined ? { permission: c.permission } : {}),
      ...(c.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: c.approvalTimeoutMs } : {}),
      ...workflowApprover(io, flags, from),
    };
    const allowChangedWorkflow = flags.allowChanged === true;
    if (!from) result = await runWorkflow(def, options);
    else if (from.at)
      result = await forkWorkflow(from.trace, def, from.at.node, {
        ...options,
        allowChangedWorkflow,
        visit: from.at.visit,
      });
    else result = await resumeWorkflow(from.trace, def, { ...options, allowChangedWorkflow });
  } catch (err) {
    if (WorkflowError.isInstance(err) || TraceError.isInstance(err)) throw new AppError(err.message);
    throw err;
  } finally {
    await telemetry?.shutdown();
  }
  const r = result;
  if (flags.json) {
    io.out(
      JSON.stringify(
        {
          status: r.status,
          output: r.output,
          reason: r.reason ?? null,
          vars: r.vars,
          runId: r.run.runId,
          traceDir: r.traceDir,
          steps: r.run.steps,
          usage: r.run.usage,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    for (const c of r.run.state?.thread?.completed ?? [])
      io.out(
        `${c.status === 'done' ? 'ok ' : c.status === 'error' ? 'ERR' : '-- '} ${c.node} (${c.kind})${c.error ? `: ${c.error}` : ''}\n`,
      );
    io.out(`${r.status}${r.reason ? `: ${r.reason}` : ''}\n`);
    if (r.output !== null) io.out(`result: ${r.output}\n`);
    if (r.traceDir) io.out(`trace: ${r.traceDir}\n`);
  }
  io.exitCode = r.status === 'completed' ? 0 : r.run.stopReason === 'interrupted' ? EXIT_INTERRUPTED : EXIT_FAILED;
}

/** Prints the replies of `stream: true` LLM nodes as they arrive (`node> text`), one line per model turn. */
function streamedNodes(io: CliIO): Hook {
  let open = false;
  return (e) => {
    if (e.type === 'agent' && e.event === 'llm_stream') {
      io.out(`${String(e.data.node)}> `);
      open = true;
    } else if (open && e.type === 'model_event') {
      if (e.event.type === 'text-delta') io.out(e.event.delta);
      else if (e.event.type === 'step-finish') {
        io.out('\n');
        open = false;
      }
    }
  };
}

/** The models LLM nodes name (`provider` and `model`), resolved before the run (a scripted model reads its file). */
async function modelsOfNodes(def: WorkflowDefinition, io: CliIO): Promise<Map<string, Model>> {
  const out = new Map<string, Model>();
  for (const n of def.nodes.values()) {
    const id = n.kind === 'llm' ? llmNodeModelId(n) : undefined;
    if (id && !out.has(id)) out.set(id, await resolveModel({ id }, def.source?.baseDir ?? io.cwd, io.env));
  }
  return out;
}

/**
 * Who answers the workflow's permission asks: a resume's --approve or --reject answers the one the thread waits on;
 * else the terminal when there is one; else no one, and the thread waits on the asking node (resume answers it).
 */
function workflowApprover(
  io: CliIO,
  flags: WorkflowRunFlags,
  from: { trace: string; at?: unknown } | undefined,
): { onApproval?: Approver } {
  if (flags.approve && flags.reject !== undefined) throw new AppError('give either --approve or --reject, not both');
  if ((flags.approve || flags.reject !== undefined) && (!from || from.at))
    throw new AppError(
      '--approve and --reject answer the ask a waiting run stopped at: use them with qitos workflow resume',
    );
  if (flags.approve) return { onApproval: waitingAskAnswer({ decision: 'once' }) };
  if (flags.reject !== undefined)
    return {
      onApproval: waitingAskAnswer({
        decision: 'reject',
        ...(typeof flags.reject === 'string' ? { message: flags.reject } : {}),
      }),
    };
  return io.tty ? { onApproval: ttyApprover(io.tty, (t) => io.err(t)) } : {};
}
