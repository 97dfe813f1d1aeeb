import type { Budget, EnvArtifact, HookEvent, Manifest, State, StopVerdict } from '../core/index.js';
import { ARTIFACT_NAME, TRACE_SCHEMA, TRACE_VERSION, canonicalJson } from '../core/index.js';
import type { AgentModule } from './agent-module.js';
import { shortHash } from './hash.js';
import type { RunContext } from './run-context.js';
import { StateDiffer } from './state-differ.js';
import { TraceWriter } from './trace-writer.js';

/** Where and how a run is traced. */
export interface TraceOptions {
  /** Folder that holds one sub-folder per run (default `traces`). */
  dir?: string;
  /**
   * Record every stream event (text/reasoning/tool-input deltas, step-start/finish) and every tool state move in
   * events.jsonl. Default: only what steps.jsonl does not hold (reasoning/tool-call boundaries, final tool states).
   */
  streamDeltas?: boolean;
  /** How to rebuild the agent (module path, export name), recorded in the manifest. */
  agentSource?: { module?: string; export?: string };
  /** The run this one was derived from (replay, fork, sub-task). */
  parent?: Manifest['parent'];
  /** Effective config recorded in the manifest. */
  config?: Record<string, unknown>;
}

/** What the manifest records about how a run was set up (the same for every run of an Engine). */
export interface RunSetup {
  agent: AgentModule<any, any>;
  trace: TraceOptions;
  budget?: Budget;
  seed?: number;
}

/** Stream events traced by default: boundaries that steps.jsonl does not already hold. */
const TRACED_STREAM = new Set(['reasoning-start', 'reasoning-end', 'tool-input-start', 'tool-call']);

/**
 * Turns one run into its trace folder: the manifest (at start and at the end), one steps.jsonl line per step with
 * the state diff, and the events worth keeping. The engine calls it at the loop's fixed points; it never steers.
 */
export class RunRecorder {
  private readonly writer: TraceWriter;
  private differ: StateDiffer | undefined;
  private initialState: unknown;
  /** True once the folder and a first manifest exist on disk. */
  wrote = false;

  constructor(
    readonly dir: string,
    private readonly setup: RunSetup,
  ) {
    this.writer = new TraceWriter(dir);
  }

  /** Writes the first manifest (status running) and remembers the initial state that step diffs apply to. */
  start<S extends State>(rc: RunContext<S>): void {
    this.initialState = JSON.parse(JSON.stringify(rc.state));
    this.writer.start(this.manifest(rc, 'running', null));
    this.wrote = true;
    this.differ = new StateDiffer(rc.state as unknown as Record<string, unknown>);
  }

  /** Records the step just finished, with what changed in the state, and flushes to disk. */
  step<S extends State>(rc: RunContext<S>): void {
    if (!this.differ) return;
    rc.rec.stateDiff = this.differ.diff(rc.state as unknown as Record<string, unknown>);
    this.writer.step(rc.rec);
    this.writer.flush();
  }

  /** Records an event if it holds something steps.jsonl does not (all stream events with `streamDeltas`). */
  event<S extends State>(rc: RunContext<S>, event: HookEvent): void {
    const full = this.setup.trace.streamDeltas ?? false;
    let type: string = event.type;
    let data: unknown;
    switch (event.type) {
      case 'phase_start':
      case 'phase_end':
        return; // durations are in steps.jsonl
      case 'model_event':
        if (!full && !TRACED_STREAM.has(event.event.type)) return;
        type = event.event.type;
        data = event.event;
        break;
      case 'tool_state': {
        const s = event.state;
        // Final states carry every timestamp (created, start, end); the moves before are traced only in full mode.
        if (!full && (s.status === 'pending' || s.status === 'running')) return;
        data = { callId: event.callId, tool: event.tool, status: s.status, time: s.time, ...(s.status === 'error' ? { error: s.error } : {}), ...('title' in s && s.title ? { title: s.title } : {}) };
        break;
      }
      default: {
        const { type: _t, ...rest } = event as { type: string } & Record<string, unknown>;
        data = rest;
      }
    }
    this.writer.event({ ts: Date.now(), step: rc.step, phase: rc.phase, type, data });
  }

  /** Writes the env's artifacts, flushes, closes and replaces the manifest with its final status and summary. */
  finish<S extends State>(rc: RunContext<S>, verdict: StopVerdict, summary: NonNullable<Manifest['summary']>, artifacts: readonly EnvArtifact[] = []): void {
    // A run that ended before its trace started (invalid task, initState threw) still leaves a trace that says so.
    if (!this.differ) {
      this.writer.start(this.manifest(rc, 'running', null));
      this.wrote = true;
    }
    const written: NonNullable<Manifest['artifacts']> = [];
    for (const a of artifacts) {
      // An env names its files; a name that is not a plain file name is refused, never resolved as a path.
      if (typeof a?.name !== 'string' || !ARTIFACT_NAME.test(a.name) || written.some((w) => w.name === a.name)) {
        summary.failures.push({ step: rc.step, kind: 'env', message: `env artifact ${JSON.stringify(a?.name)} was not written: an artifact name is a unique plain file name (letters, digits, ".", "_", "-")`, fatal: false });
        continue;
      }
      try {
        written.push({ name: a.name, bytes: this.writer.artifact(a.name, a.content) });
      } catch (err) {
        // A file that cannot be written (disk full) must not keep the manifest from being finalized.
        summary.failures.push({ step: rc.step, kind: 'trace', message: `env artifact "${a.name}" could not be written: ${(err as Error).message}`, fatal: false });
      }
    }
    const failed = verdict.reason === 'unrecoverable_error' || verdict.reason === 'task_invalid' || verdict.reason === 'env_capability_mismatch';
    this.writer.finish({ ...this.manifest(rc, verdict.reason === 'interrupted' ? 'interrupted' : failed ? 'failed' : 'completed', summary), ...(written.length ? { artifacts: written } : {}) });
  }

  private manifest<S extends State>(rc: RunContext<S>, status: Manifest['status'], summary: Manifest['summary']): Manifest {
    const { agent, trace: t, budget, seed } = this.setup;
    const system = rc.state ? agent.buildSystemPrompt(rc.state) : undefined;
    return {
      schema: TRACE_SCHEMA,
      version: TRACE_VERSION,
      runId: rc.runId,
      status,
      createdAt: new Date(rc.startedAt).toISOString(),
      updatedAt: new Date().toISOString(),
      agent: { name: agent.name, ...t.agentSource, ...(agent.variant ? { variant: agent.variant } : {}), config: agent.config },
      task: rc.task as unknown as Record<string, unknown>,
      model: rc.model ? { id: rc.model.id, params: agent.modelParams } : null,
      parser: agent.parser?.name ?? null,
      tools: agent.tools.names,
      policies: rc.policies.map((p) => p.name),
      budget: { ...budget, ...rc.task?.budget, maxSteps: rc.state?.maxSteps },
      env: { name: rc.env.name },
      seed: seed ?? agent.modelParams.seed ?? null,
      hashes: {
        ...(t.config ? { config: shortHash(canonicalJson(t.config)) } : {}),
        ...(system ? { systemPrompt: shortHash(system) } : {}),
        toolSchemas: shortHash(canonicalJson(agent.tools.specs())),
      },
      ...(t.config ? { config: t.config } : {}),
      parent: t.parent ?? null,
      initialState: this.initialState ?? null,
      summary,
    } as Manifest;
  }
}
