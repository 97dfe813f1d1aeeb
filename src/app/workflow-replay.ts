import type { ActionRunner, AnyTool, Approver, Hook, Manifest, ParentLink } from '../core/index.js';
import { defineTool, errorMessage } from '../core/index.js';
import { Engine, type RunResult } from '../engine/engine.js';
import type { EngineOptions } from '../engine/engine-options.js';
import { mcpParameters } from '../kit/mcp/mcp-parameters.js';
import {
  WorkflowAgent,
  WorkflowDefinition,
  WorkflowError,
  recordedWorkflowJson,
  type WorkflowState,
} from '../kit/workflow/index.js';
import { traceTexts, type ReplayModel, type Trace } from '../trace/index.js';
import { AppError } from './app-error.js';
import type { QitosConfig } from './config-schema.js';
import type { AppIO } from './app-io.js';
import { configuredEngine } from './build-engine.js';
import { workflowTools } from './workflow-tools.js';

/** The ids of a WorkflowAgent's own tools: it registers them itself, so a rebuilt agent must not get them twice. */
const INTERNAL_TOOLS = new Set(['_workflow_fork', '_workflow_subflow']);

/**
 * The workflow a run's manifest records (`agent.config.workflow`, or a branch's `agent.config.workflowRef` looked
 * up in its parent run's manifest and checked), or undefined when the run is not a workflow run. The recorded
 * workflow is data (node configs, edges, safe expressions): rebuilding it runs no code from the trace.
 */
export function recordedWorkflow(m: Manifest, dir: string): WorkflowDefinition | undefined {
  let recorded: unknown;
  try {
    recorded = recordedWorkflowJson(m, dir);
  } catch (err) {
    throw new AppError(errorMessage(err));
  }
  if (recorded === undefined) return undefined;
  try {
    return WorkflowDefinition.create(recorded as Parameters<typeof WorkflowDefinition.create>[0]);
  } catch (err) {
    throw new AppError(
      `corrupt trace: manifest.json in ${dir}: ` +
        `agent.config.workflow: ${WorkflowError.isInstance(err) ? err.message.split('\n').join(' ') : errorMessage(err)}`,
    );
  }
}

/**
 * Stand-ins for a recorded run's tools, made from the specs its trace holds (names, descriptions, JSON Schemas):
 * what a replay that serves the recorded results needs to rebuild the agent and its requests. Calling one is an
 * error that says why; it never runs, because the replay's executor answers every call from the recording.
 */
export function recordedTools(trace: Pick<Trace, 'dir' | 'events' | 'steps' | 'manifest'>): AnyTool[] {
  const hash = trace.manifest.hashes.toolSchemas;
  const specs = hash === undefined ? undefined : traceTexts(trace).toolSpecs.get(hash);
  if (!specs)
    throw new AppError(
      `trace ${trace.dir} does not hold the specs of its tools (written before traces recorded them), so its workflow cannot be rebuilt`,
    );
  return specs
    .filter((s) => !INTERNAL_TOOLS.has(s.name))
    .map((s) =>
      defineTool({
        id: s.name,
        description: s.description,
        parameters: mcpParameters(s.inputSchema).schema,
        // the model must see the recorded schema byte for byte (a JSON Schema -> zod -> JSON Schema trip changes it)
        inputSchema: s.inputSchema,
        execute: () => {
          throw new Error(
            `tool "${s.name}" is served from the recording in a replay and cannot run here (replay with --live-tools to run it)`,
          );
        },
      }),
    );
}

/** What a workflow replay needs besides the recorded run: the replay model and executor, and the run's links. */
export interface WorkflowReplaySetup {
  workflow: WorkflowDefinition;
  trace: Trace;
  config: QitosConfig;
  model: ReplayModel;
  /** Undefined with `--live-tools`: the calls run again. */
  executor: ActionRunner | undefined;
  /** `--tools`: the module of the workflow's own tools, for `--live-tools`. */
  toolsModule: string | undefined;
  parent: ParentLink;
  hooks: Hook[];
  signingKey: Uint8Array | undefined;
  resumeFrom?: { state: WorkflowState; step: number };
  /** Serves the recorded answers to asks (tool nodes' under --live-tools, interrupt nodes' values). */
  onApproval?: Approver;
  /** The step debugger (`qitos debug <trace>`): breakpoints, onBreak, breakCondition. */
  debug?: Pick<EngineOptions<WorkflowState>, 'breakpoints' | 'onBreak' | 'breakCondition'>;
}

/**
 * Replays a workflow run (or one of its branch threads): a WorkflowAgent of the recorded workflow, entry and stop
 * node, whose LLM nodes' calls the replay model serves by purpose (`workflow:<node>`) and whose tool calls (a
 * fork's too: its branches are not run again, their recorded outcome is served) the replay executor answers.
 * Built like `qitos workflow run` builds its engine (its budget, env, trace folder and permission rules; no config
 * policies): the rules are those of the replay's config, so a changed rule set shows as drift.
 */
export async function replayWorkflow(
  io: Pick<AppIO, 'cwd'>,
  s: WorkflowReplaySetup,
): Promise<RunResult<WorkflowState>> {
  const m = s.trace.manifest;
  // Runs record a workflow: section (empty when none was given); runs recorded before it existed took engine:'s budget.
  const c = configuredEngine(s.config, io.cwd, s.config.workflow ? 'workflow' : 'agent');
  const env = c.env();
  const tools = s.executor
    ? recordedTools(s.trace)
    : await workflowTools(io as AppIO, s.toolsModule, env !== undefined);
  const at = m.agent.config as { entry?: unknown; stopAt?: unknown };
  let agent: WorkflowAgent;
  try {
    agent = new WorkflowAgent({
      workflow: s.workflow,
      model: s.model,
      tools,
      resolveModel: () => s.model,
      ...(typeof at.entry === 'string' ? { entry: at.entry } : {}),
      ...(typeof at.stopAt === 'string' ? { stopAt: at.stopAt } : {}),
    });
  } catch (err) {
    if (WorkflowError.isInstance(err))
      throw new AppError(
        `cannot rebuild the workflow of ` +
          `trace ${s.trace.dir}: ${err.message}${s.executor ? '' : ' (pass the module of its tools with --tools)'}`,
      );
    throw err;
  }
  const engine = new Engine<WorkflowState>({
    agent,
    ...(env ? { env } : {}),
    budget: c.budget,
    ...(s.executor ? { executor: s.executor } : {}),
    hooks: s.hooks,
    handleSigint: true,
    parent: s.parent,
    ...(c.permission !== undefined ? { permission: c.permission } : {}),
    ...(c.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: c.approvalTimeoutMs } : {}),
    ...(s.onApproval ? { onApproval: s.onApproval } : {}),
    ...s.debug,
    trace: {
      dir: c.traceDir,
      config: c.recorded,
      ...(s.signingKey ? { signingKey: s.signingKey } : {}),
    },
  });
  return engine.run(m.task as Parameters<typeof engine.run>[0], s.resumeFrom ? { resumeFrom: s.resumeFrom } : {});
}
