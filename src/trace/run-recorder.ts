import type {
  Budget,
  EnvArtifact,
  HookEvent,
  Manifest,
  PermissionRule,
  Phase,
  Redactor,
  RunParent,
  State,
  StepRecord,
  StopVerdict,
  Task,
  ToolSpec,
  TraceTap,
} from '../core/index.js';
import { ARTIFACT_NAME, TRACE_SCHEMA, TRACE_VERSION, canonicalJson } from '../core/index.js';
import { shortHash } from './short-hash.js';
import { StateDiffer } from './state-differ.js';
import { TraceWriter } from './trace-writer.js';

/** Where and how a run is traced. */
export interface TraceOptions {
  /** Folder that holds one sub-folder per run (default `traces`). */
  dir?: string;
  /**
   * Record every stream event (text/reasoning/tool-input deltas, step-start/finish) and every tool state move in
   * events.jsonl. Default: only what steps.jsonl does not hold (reasoning/tool-call boundaries, retries, final tool states).
   */
  streamDeltas?: boolean;
  /** How to rebuild the agent (module path, export name) and the sha-256 of the module file, recorded in the manifest. */
  agentSource?: { module?: string; export?: string; sha256?: string };
  /** Effective config recorded in the manifest. */
  config?: Record<string, unknown>;
  /**
   * Signs every manifest written (HMAC-SHA256, `signature`) with this key, so the CLI can tell the runs this
   * machine wrote from traces that come from elsewhere (the CLI passes its local trace key).
   */
  signingKey?: Uint8Array;
  /**
   * Receives every run's records as they are written, redacted (live telemetry: `otlpTap` in `qitos-ts/trace`). A
   * traced sub-run of the run hands its records to the same tap.
   */
  tap?: TraceTap;
}

/** What the manifest says about how a run was set up. The engine describes each run with one. */
export interface RunDescription {
  agent: Manifest['agent'];
  model: Manifest['model'];
  parser: string | null;
  tools: string[];
  toolSpecs: readonly ToolSpec[];
  policies: string[];
  env: { name: string; sandbox?: string };
  seed: number | null;
  /** The run's budget (the tightest of the task's, the engine's and a parent's share); the state's `maxSteps` bounds its steps too. */
  budget: Budget | undefined;
  parent: RunParent | null;
  config?: Record<string, unknown>;
  /** The run's permission rules, flattened (absent without rules). */
  permission?: readonly PermissionRule[];
  /** The system prompt for a state (its hash goes in the manifest). */
  systemPrompt(state: State): string | undefined;
}

/** A run as its manifest sees it: the task, and the state when there is one (none before `initState`). */
export interface RunSnapshot {
  runId: string;
  startedAt: number;
  task: Task;
  state: State | undefined;
}

/** Stream events traced by default: boundaries that steps.jsonl does not already hold. */
const TRACED_STREAM = new Set(['reasoning-start', 'reasoning-end', 'tool-input-start', 'tool-call', 'retry']);

/**
 * Turns one run into its trace folder: the manifest (at start and at the end), one steps.jsonl line per step with
 * the state diff, and the events worth keeping. The engine calls it at the loop's fixed points; it never steers.
 */
export class RunRecorder {
  private readonly writer: TraceWriter;
  private differ: StateDiffer | undefined;
  private initialState: unknown;
  /** Hash of the system prompt last written (a step's model record carries the prompt only when it changed). */
  private systemHash: string | undefined;
  /** The system prompt of the state the run started from (`text` undefined: the agent has none). */
  private firstSystem: { text: string | undefined } | undefined;
  /** Hashes of the tool spec lists written as `tool_specs` events. */
  private readonly toolHashes = new Set<string>();
  /** The `prompt` and `tool_specs` events of the start, written after run_start. */
  private readonly startTexts: Array<{ type: string; data: unknown }> = [];
  /** True once the folder and a first manifest exist on disk. */
  wrote = false;
  /** The manifest's hashes: what they hash is fixed once the run has its first system prompt, so they are computed once. */
  private hashes: Manifest['hashes'] | undefined;

  constructor(
    readonly dir: string,
    private readonly description: RunDescription,
    private readonly options: Pick<TraceOptions, 'streamDeltas' | 'signingKey' | 'tap'> & {
      redactor?: Redactor;
      /** Called with this folder and the sha-256 of each manifest written (a parent run's recorder takes it). */
      onManifest?: (dir: string, sha256: string) => void;
    } = {},
  ) {
    this.writer = new TraceWriter(dir, options);
  }

  /** The digest of a child run's manifest, as its writer wrote it (the child's trace is in a sub-folder of this one). */
  childManifest(dir: string, sha256: string): void {
    this.writer.childManifest(dir, sha256);
  }

  /** Writes the first manifest (status running) and remembers the initial state that step diffs apply to. */
  start(run: RunSnapshot & { state: State }): void {
    this.initialState = JSON.parse(JSON.stringify(run.state));
    // The manifest hashes the first system prompt (a prompt built from the state changes as the run goes).
    this.firstSystem = { text: this.description.systemPrompt(run.state) };
    const manifest = this.manifest(run, 'running', null);
    this.writer.start(manifest);
    this.wrote = true;
    this.differ = new StateDiffer(run.state as unknown as Record<string, unknown>);
    // The texts behind the manifest's hashes, so diff and replay can show what changed, not only that it did
    // (written right after run_start, which the engine emits next).
    const system = this.firstSystem.text;
    if (system && manifest.hashes.systemPrompt)
      this.startTexts.push({ type: 'prompt', data: { hash: manifest.hashes.systemPrompt, text: system } });
    if (this.description.toolSpecs.length) {
      this.toolHashes.add(manifest.hashes.toolSchemas!);
      this.startTexts.push({
        type: 'tool_specs',
        data: { hash: manifest.hashes.toolSchemas, specs: this.description.toolSpecs },
      });
    }
  }

  /** Writes the start's `prompt` and `tool_specs` events (once). */
  private writeStartTexts(): void {
    for (const t of this.startTexts.splice(0)) this.writer.event({ ts: Date.now(), step: 0, phase: 'init', ...t });
  }

  /** Writes a `tool_specs` event the first time a (non-empty) tool spec list's hash is seen in the run. */
  private toolSpecs(step: number, phase: Phase, hash: string, specs: readonly ToolSpec[] | undefined): void {
    if (!specs?.length || this.toolHashes.has(hash)) return;
    this.toolHashes.add(hash);
    this.writer.event({ ts: Date.now(), step, phase, type: 'tool_specs', data: { hash, specs } });
  }

  /**
   * Records the step just finished, with what changed in the state, and flushes to disk. `system` is the system
   * prompt of the step's model call: it is written into the model record only when it differs from the last one
   * written (so always on the first). `tools` are the tool specs the model call sent: a `tool_specs` event holds
   * them the first time their hash is seen. `rec` is read, never written: the line is a copy with the state diff.
   */
  step(rec: Readonly<StepRecord>, state: State, system?: string, tools?: readonly ToolSpec[]): void {
    if (!this.differ) return;
    const m = rec.model;
    this.writeStartTexts();
    if (m) this.toolSpecs(rec.step, 'decide', m.hashes.tools, tools);
    // A copy keeps the record's field order (the line reads as the engine recorded it).
    const line: StepRecord = { ...rec, stateDiff: this.differ.diff(state as unknown as Record<string, unknown>) };
    if (m && m.hashes.system !== this.systemHash) {
      this.systemHash = m.hashes.system;
      line.model = {
        hashes: m.hashes,
        system: system ?? '',
        messageCount: m.messageCount,
        ...(m.memory ? { memory: m.memory } : {}),
        response: m.response,
        latencyMs: m.latencyMs,
      };
    }
    this.writer.step(line);
    this.writer.flush();
  }

  /** Records an event if it holds something steps.jsonl does not (all stream events with `streamDeltas`). */
  event(step: number, phase: Phase, event: HookEvent): void {
    const full = this.options.streamDeltas ?? false;
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
        data = {
          callId: event.callId,
          tool: event.tool,
          status: s.status,
          time: s.time,
          ...(s.status === 'error' ? { error: s.error } : {}),
          ...('title' in s && s.title ? { title: s.title } : {}),
        };
        break;
      }
      default: {
        const { type: _t, ...rest } = event as { type: string } & Record<string, unknown>;
        data = rest;
      }
    }
    this.writer.event({ ts: Date.now(), step, phase, type, data });
    if (type === 'run_start') this.writeStartTexts();
  }

  /** Writes the env's artifacts, flushes, closes and replaces the manifest with its final status and summary. */
  finish(
    run: RunSnapshot,
    verdict: StopVerdict,
    summary: NonNullable<Manifest['summary']>,
    artifacts: readonly EnvArtifact[] = [],
  ): void {
    // A run that ended before its trace started (invalid task, initState threw) still leaves a trace that says so.
    if (!this.differ) {
      this.writer.start(this.manifest(run, 'running', null));
      this.wrote = true;
    }
    this.writeStartTexts();
    const written: NonNullable<Manifest['artifacts']> = [];
    for (const a of artifacts) {
      // An env names its files; a name that is not a plain file name is refused, never resolved as a path.
      if (typeof a?.name !== 'string' || !ARTIFACT_NAME.test(a.name) || written.some((w) => w.name === a.name)) {
        summary.failures.push({
          step: summary.steps,
          kind: 'env',
          message:
            `env artifact ${JSON.stringify(a?.name)} was not written: an artifact name is a unique ` +
            `plain file name (letters, digits, ".", "_", "-")`,
          fatal: false,
        });
        continue;
      }
      try {
        written.push({ name: a.name, bytes: this.writer.artifact(a.name, a.content) });
      } catch (err) {
        // A file that cannot be written (disk full) must not keep the manifest from being finalized.
        summary.failures.push({
          step: summary.steps,
          kind: 'trace',
          message: `env artifact "${a.name}" could not be written: ${(err as Error).message}`,
          fatal: false,
        });
      }
    }
    if (this.writer.tapFailure)
      summary.failures.push({ step: summary.steps, kind: 'trace', message: this.writer.tapFailure, fatal: false });
    const failed =
      verdict.reason === 'unrecoverable_error' ||
      verdict.reason === 'task_invalid' ||
      verdict.reason === 'env_capability_mismatch';
    this.writer.finish({
      ...this.manifest(
        run,
        verdict.reason === 'interrupted' ? 'interrupted' : failed ? 'failed' : 'completed',
        summary,
      ),
      ...(written.length ? { artifacts: written } : {}),
    });
  }

  private manifest(run: RunSnapshot, status: Manifest['status'], summary: Manifest['summary']): Manifest {
    const d = this.description;
    const system = this.firstSystem ? this.firstSystem.text : run.state ? d.systemPrompt(run.state) : undefined;
    return {
      schema: TRACE_SCHEMA,
      version: TRACE_VERSION,
      runId: run.runId,
      status,
      createdAt: new Date(run.startedAt).toISOString(),
      updatedAt: new Date().toISOString(),
      agent: d.agent,
      task: run.task as unknown as Record<string, unknown>,
      model: d.model,
      parser: d.parser,
      tools: d.tools,
      policies: d.policies,
      budget: { ...d.budget, maxSteps: effectiveMaxSteps(d.budget?.maxSteps, run.state?.maxSteps) },
      env: d.env,
      seed: d.seed,
      hashes: (this.hashes ??= {
        ...(d.config ? { config: shortHash(canonicalJson(d.config)) } : {}),
        ...(system ? { systemPrompt: shortHash(system) } : {}),
        toolSchemas: shortHash(canonicalJson(d.toolSpecs)),
      }),
      ...(d.config ? { config: d.config } : {}),
      parent: d.parent,
      ...(d.permission ? { permission: [...d.permission] } : {}),
      initialState: this.initialState ?? null,
      summary,
    };
  }
}

/** The step limit a run is held to: the state's `maxSteps` and the budget's, whichever is smaller. */
function effectiveMaxSteps(budget: number | undefined, state: number | undefined): number | undefined {
  return budget === undefined ? state : state === undefined ? budget : Math.min(budget, state);
}
