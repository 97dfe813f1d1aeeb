/** The flags of the commands that load their action lazily, shared by the command and its action. */
import type { ConfigFlags } from '../../app/effective-config.js';
import type { BenchSettings } from '../../app/bench-run.js';

/** The flags of `qitos run`. */
export interface RunFlags extends ConfigFlags {
  task?: string;
  mcpPrompt?: string;
  arg: Record<string, string>;
  export?: string;
  json?: boolean;
  /** Approve every permission ask (deny rules still refuse). */
  auto?: boolean;
}

/** What replay and fork may take from a trace instead of the recording (docs/security.md). */
interface RecordedRunFlags {
  agent?: string;
  export?: string;
  trustTrace?: boolean;
  /** Import the recorded agent module although it changed since the run. */
  allowChangedAgent?: boolean;
}

/** The flags of `qitos fork`. */
export interface ForkFlags extends ConfigFlags, RecordedRunFlags {
  at: number;
  /** With `--at k`: run step k again acting on this candidate of its branch decision. */
  branch?: number;
  task?: string;
  json?: boolean;
  quiet?: boolean;
  /** Approve every permission ask (deny rules still refuse), as `qitos run --auto`. */
  auto?: boolean;
}

/** The flags of `qitos replay`. */
export interface ReplayFlags extends RecordedRunFlags {
  liveTools?: boolean;
  /** A workflow run's tools module, for `--live-tools`. */
  tools?: string;
  workspace?: string;
  allowDrift?: boolean;
  /** Permission rules to replay under instead of the recorded config's. */
  permission?: string;
  traceDir?: string;
  json?: boolean;
  quiet?: boolean;
}

/** The flags of `qitos diff`. */
export interface DiffFlags {
  json?: boolean;
  all?: boolean;
  limit: number;
  exitCode?: boolean;
}

/** What a bench run's settings are made of (`bench run` and every cell of `bench sweep`), and its OpenTelemetry export. */
export interface BenchSettingsFlags extends BenchSettings {
  /** `--otel <endpoint>` and `--otel-content` (see ConfigFlags). */
  otel?: string;
  otelContent?: boolean;
}

/** The options suite providers declare (`--split`, `--task-ids`, ...), by key, as given. */
export interface SuiteOptionFlags {
  [providerOption: string]: unknown;
}

/** The flags of `qitos bench run`. */
export interface BenchRunFlags extends BenchSettingsFlags, SuiteOptionFlags {
  concurrency?: number;
  epochs?: number;
  shard?: string;
  out?: string;
  resume?: boolean;
  /** Resume even when the folder's recorded settings differ from these (run.json records it). */
  forceResume?: boolean;
  rateLimit?: string;
  json?: boolean;
  progress?: boolean;
  /** tau-bench: runs per task, another name for `epochs`. */
  trials?: number;
}

/** The flags of `qitos bench sweep`. */
export interface BenchSweepFlags extends BenchSettingsFlags, SuiteOptionFlags {
  grid: string[];
  out: string;
  baseline?: string;
  concurrency?: number;
  epochs?: number;
  rateLimit?: string;
  forceResume?: boolean;
  seed?: number;
  resamples?: number;
  json?: boolean;
  csv?: string;
  progress?: boolean;
}

/** The flags of `qitos bench compare`. */
export interface BenchCompareFlags {
  judge?: string;
  rubric?: string;
  json?: boolean;
  seed?: number;
  resamples?: number;
}

/** The flags of `qitos bench merge`. */
export interface BenchMergeFlags {
  out: string;
  json?: boolean;
}

/** Flags of `qitos bench report`. */
export interface BenchReportFlags {
  out?: string;
  json?: boolean;
}

/** The flags every `qitos skills` subcommand shares. */
export interface RootFlags {
  root?: string;
  embedder?: string;
  embedderUrl?: string;
  json?: boolean;
}

/** The flags of `qitos serve`. */
export interface ServeFlags extends ConfigFlags {
  agent: string;
  export?: string;
  name?: string;
  serveModel: string[];
  host: string;
  port: number;
  maxRuns?: number;
  skillsRoot?: string;
  allowedHost: string[];
  maxConnections?: number;
  headersTimeout?: number;
  requestTimeout?: number;
}

/** The flags of `qitos mcp serve`. */
export interface McpServeFlags extends ConfigFlags {
  agent: string;
  export?: string;
  name?: string;
  serveModel: string[];
  http?: boolean;
  host: string;
  port: number;
  maxRuns?: number;
  allowedHost: string[];
  maxConnections?: number;
  headersTimeout?: number;
  requestTimeout?: number;
}

/** The flags of `qitos workflow run`. */
export interface WorkflowRunFlags extends ConfigFlags {
  /** `--var k=v` (strings) and `--var k:=<json>`. */
  var: Record<string, unknown>;
  tools?: string;
  json?: boolean;
  /** resume: go on with a workflow file that differs from the one the run recorded. */
  allowChanged?: boolean;
  /** resume: run the call whose permission ask the thread waits on. */
  approve?: boolean;
  /** resume: refuse that call, with this message for the agent (true: no message). */
  reject?: string | boolean;
}

/** The flags of `qitos workflow check`. */
export interface WorkflowCheckFlags {
  json?: boolean;
}

/** The flags of `qitos board`. */
export interface BoardFlags {
  host: string;
  port: number;
  allowedHost: string[];
  /** false with --no-cache: no index cache file is read or written. */
  cache: boolean;
  depth?: number;
  poll?: number;
  maxConnections?: number;
  headersTimeout?: number;
  requestTimeout?: number;
}

/** The flags of `qitos debug`. */
export interface DebugFlags extends ConfigFlags, RecordedRunFlags {
  task?: string;
  /** Breakpoints to start with (as `break` takes them at the prompt). */
  break: string[];
  quiet?: boolean;
}

/** The flags of `qitos trace export`. */
export interface TraceExportFlags {
  otlp?: string;
  protocol?: string;
  content?: boolean;
  serviceName?: string;
  json?: boolean;
}
