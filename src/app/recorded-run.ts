import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Manifest } from '../core/index.js';
import { formatZodIssue } from '../core/index.js';
import type { Trace } from '../trace/index.js';
import { loadAgent, type LoadedAgent } from './agent-loader.js';
import { AppError } from './app-error.js';
import { moduleSha256 } from './module-hash.js';
import { QitosConfig } from './config-schema.js';
import type { AppIO } from './app-io.js';
import { loadTraceKey, traceKeyPath } from '../trace/trace-key.js';
import { loadTrace } from './trace-loader.js';
import { checkTraceTrust, traceUses, untrustedBase, untrustedReason, type TrustFlags } from './trace-trust.js';

/** A recorded run to run again (replay, fork): its trace, the config it was started with, and whether it is this machine's. */
export interface RecordedRun {
  trace: Trace;
  manifest: Manifest;
  /** The config the manifest records. */
  recorded: QitosConfig;
  /**
   * What a new run starts from: the recorded config; for a trace from elsewhere without `--trust-trace`, without what
   * the flags replace (untrustedBase).
   */
  config: QitosConfig;
  /** Why the trace does not count as written here (undefined: its manifest is signed with this machine's key). */
  untrusted: string | undefined;
  /** A bench trial of a provider's suite (tau-bench): the provider and its recorded settings (`config.suite`). */
  suite: RecordedSuite | undefined;
}

/** What a trial of a provider's suite records besides the config: the provider's name and its settings of the run. */
export interface RecordedSuite {
  provider: string;
  record: Record<string, unknown>;
}

/** Reads the trace a replay or fork command was given and checks its signature. Nothing it names is loaded yet. */
export async function openRecordedRun(
  io: Pick<AppIO, 'cwd' | 'err' | 'env'>,
  path: string,
  flags: TrustFlags,
): Promise<RecordedRun> {
  const key = await loadTraceKey(io.env);
  const trace = await loadTrace(io, path, key);
  const manifest = trace.manifest;
  const { config: recorded, suite } = recordedConfig(manifest, trace.dir);
  const untrusted = untrustedReason(trace, traceKeyPath(io.env));
  return {
    trace,
    manifest,
    recorded,
    config: untrusted && !flags.trustTrace ? untrustedBase(recorded, flags) : recorded,
    untrusted,
    suite,
  };
}

/**
 * Loads the agent of a recorded run with the config it will run with, once the trust check passed: the user's
 * `--agent` (and `--export`), else the recorded module. Refuses (one line naming the fields) what a trace from
 * elsewhere names, unless `--trust-trace`.
 */
export async function recordedRunAgent(
  io: Pick<AppIO, 'cwd' | 'err'>,
  run: RecordedRun,
  config: QitosConfig,
  flags: TrustFlags & { export?: string },
): Promise<LoadedAgent> {
  checkTraceTrust(io, run.trace.dir, run.untrusted, traceUses(run.manifest, run.recorded, config, flags), flags);
  if (flags.agent) return loadAgent(flags.agent, flags.export, io.cwd);
  return loadRecordedAgent(io, run.manifest, run.trace.dir, flags);
}

/**
 * The config a trace was recorded with (what `qitos run` wrote in the manifest), and a bench trial's suite record
 * (`suite: { provider, ... }`; tau-bench trials recorded before providers wrote it as `tau`).
 */
function recordedConfig(m: Manifest, dir: string): { config: QitosConfig; suite: RecordedSuite | undefined } {
  const { suite, tau, ...rest } = (m.config ?? {}) as Record<string, unknown>;
  const parsed = QitosConfig.safeParse(rest);
  if (!parsed.success)
    throw new AppError(`corrupt trace: manifest.json in ${dir}: config.${formatZodIssue(parsed.error.issues[0])}`);
  const record = (v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const s = record(suite);
  const t = record(tau);
  if (suite !== undefined && (!s || typeof s.provider !== 'string'))
    throw new AppError(`corrupt trace: manifest.json in ${dir}: config.suite: expected an object naming its provider`);
  const { provider, ...settings } = s ?? {};
  return {
    config: parsed.data,
    suite: s
      ? { provider: provider as string, record: settings }
      : t
        ? { provider: 'tau-bench', record: t }
        : undefined,
  };
}

/**
 * Checks that the module file at `path` still holds what the recorded run imported (the manifest's `agent.sha256`):
 * another file at that path is other code. `--trust-trace` or `--allow-changed-agent` runs a changed module
 * knowingly (a line says so first).
 */
export async function checkRecordedModule(
  io: Pick<AppIO, 'err'>,
  m: Manifest,
  dir: string,
  absPath: string,
  flags: TrustFlags,
): Promise<void> {
  const module = m.agent.module;
  const expected = m.agent.sha256;
  const actual = await moduleSha256(absPath);
  if (expected === actual) return;
  const what =
    expected === undefined
      ? `trace ${dir} does not record the sha-256 of its agent module ${module}, so it cannot be ` +
        `told apart from another file at that path (its sha-256 is ${actual})`
      : `agent module ${module} changed since trace ${dir} was recorded: sha-256 ${actual}, the run imported ${expected}`;
  if (!flags.trustTrace && !flags.allowChangedAgent)
    throw new AppError(`${what}; pass --allow-changed-agent to run it as it is now, or --agent to name a module`);
  io.err(`${flags.allowChangedAgent ? '--allow-changed-agent' : '--trust-trace'}: ${what}; running it as it is now\n`);
}

/**
 * Loads the agent class a trace records (module and export), to rebuild its run for replay or fork.
 * Traces not written by `qitos run` do not record the module: a AppError says so. The module file must still hold
 * what the run imported (the manifest's `agent.sha256`), checked before it is imported: another file at that path is
 * other code. `--trust-trace` or `--allow-changed-agent` imports a changed module knowingly (a line says so first).
 */
async function loadRecordedAgent(
  io: Pick<AppIO, 'cwd' | 'err'>,
  m: Manifest,
  dir: string,
  flags: TrustFlags,
): Promise<LoadedAgent> {
  const module = m.agent.module;
  if (!module)
    throw new AppError(
      `trace ${dir} does not record its agent module (it was not started with \`qitos run\`), so the agent cannot be rebuilt; pass --agent`,
    );
  const absPath = resolve(io.cwd, module);
  // A relative module path is relative to the folder the run was started in, which may not be this one.
  if (!(await stat(absPath).catch(() => undefined))?.isFile()) {
    if (isAbsolute(module)) throw new AppError(`agent module not found: ${module}`);
    throw new AppError(
      `agent module not found: ${module} (the trace records it relative to the folder its run ` +
        `was started in; run this command from there, or pass --agent)`,
    );
  }
  await checkRecordedModule(io, m, dir, absPath, flags);
  return loadAgent(module, m.agent.export, io.cwd);
}
