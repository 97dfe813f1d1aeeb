import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Manifest } from '../core/index.js';
import { formatZodIssue } from '../core/index.js';
import type { Trace } from '../trace/index.js';
import { loadAgent, type LoadedAgent } from './agent-loader.js';
import { CliError } from './cli-error.js';
import { QitosConfig } from './config-schema.js';
import type { CliIO } from './io.js';
import { loadTrace } from './trace-loader.js';

/** A recorded run to run again (replay, fork): its trace, the config and the agent it was started with. */
export interface RecordedRun {
  trace: Trace;
  manifest: Manifest;
  config: QitosConfig;
  loaded: LoadedAgent;
}

/** Reads the trace a replay or fork command was given and loads what rebuilds its run. */
export async function openRecordedRun(io: Pick<CliIO, 'cwd' | 'err'>, path: string): Promise<RecordedRun> {
  const trace = await loadTrace(io, path);
  const manifest = trace.manifest;
  const config = recordedConfig(manifest, trace.dir);
  const loaded = await loadRecordedAgent(manifest, trace.dir, io.cwd);
  return { trace, manifest, config, loaded };
}

/** The config a trace was recorded with (what `qitos run` wrote in the manifest). */
export function recordedConfig(m: Manifest, dir: string): QitosConfig {
  const parsed = QitosConfig.safeParse(m.config ?? {});
  if (!parsed.success) throw new CliError(`corrupt trace: manifest.json in ${dir}: config.${formatZodIssue(parsed.error.issues[0])}`);
  return parsed.data;
}

/**
 * Loads the agent class a trace records (module and export), to rebuild its run for replay or fork.
 * Traces not written by `qitos run` do not record the module: a CliError says so.
 */
export async function loadRecordedAgent(m: Manifest, dir: string, cwd: string): Promise<LoadedAgent> {
  const module = m.agent.module;
  if (!module) throw new CliError(`trace ${dir} does not record its agent module (it was not started with \`qitos run\`), so the agent cannot be rebuilt`);
  // A relative module path is relative to the folder the run was started in, which may not be this one.
  if (!isAbsolute(module) && !(await stat(resolve(cwd, module)).catch(() => undefined))?.isFile()) {
    throw new CliError(`agent module not found: ${module} (the trace records it relative to the folder its run was started in; run this command from there)`);
  }
  return loadAgent(module, m.agent.export, cwd);
}
