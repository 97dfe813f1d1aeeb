import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { State } from '../../core/index.js';
import type { RunResult } from '../../engine/engine.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { loadAgent } from '../../app/agent-loader.js';
import { AppError } from '../../app/app-error.js';
import { DebugSession } from '../debug-session.js';
import { effectiveConfig, requireText } from '../../app/effective-config.js';
import type { CliIO } from '../io.js';
import { LineReader } from '../line-reader.js';
import { LiveView } from '../live-view.js';
import { withMcp } from '../../app/mcp-setup.js';
import { replaySession } from '../../app/replay-session.js';
import { printRunEnd, runExitCode } from '../run-report.js';
import { buildAgent, buildEngine, configuredModel } from '../../app/build-engine.js';
import type { DebugFlags } from './command-flags.js';

/** What `qitos debug` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function debugAction(io: CliIO, target: string, flags: DebugFlags): Promise<void> {
  if (!io.stdin) throw new AppError('qitos debug reads its commands from standard input, and there is none');
  const isTrace = await stat(join(resolve(io.cwd, target), 'manifest.json')).then(
    (s) => s.isFile(),
    () => false,
  );
  const reader = new LineReader(io.stdin);
  const session = new DebugSession(reader, (t) => io.out(t));
  try {
    for (const spec of flags.break) {
      try {
        session.add(spec);
      } catch (err) {
        throw new AppError(`--break: ${(err as Error).message}`);
      }
    }
    const result = isTrace ? await debugTrace(io, target, flags, session) : await debugLive(io, target, flags, session);
    printRunEnd(io, result);
    io.exitCode = runExitCode(result);
  } finally {
    reader.close();
  }
}

/** The hooks of a debugged run: the live view of its steps, unless --quiet. */
function viewHooks(io: CliIO, flags: DebugFlags) {
  return flags.quiet ? [] : [new LiveView((line) => io.out(line)).hook];
}

/** `qitos debug <agent> --task …`: a live run. */
async function debugLive(io: CliIO, modulePath: string, flags: DebugFlags, session: DebugSession) {
  if (flags.task === undefined)
    throw new AppError(`--task is required to debug a live run (${modulePath} is not a trace folder)`);
  requireText(flags.task, '--task');
  if (flags.agent || flags.trustTrace || flags.allowChangedAgent)
    throw new AppError('--agent, --trust-trace and --allow-changed-agent are for debugging a recorded run');
  const config = await effectiveConfig({}, flags, io.cwd);
  const loaded = await loadAgent(modulePath, flags.export, io.cwd);
  const model = await configuredModel(config, io.cwd, io.env);
  const agent = buildAgent(loaded, config, model);
  return withMcp(config, io, async (mcp) => {
    const engine = await buildEngine({
      agent,
      loaded,
      config,
      cwd: io.cwd,
      hooks: viewHooks(io, flags),
      warn: (l) => io.err(l),
      ...(mcp ? { mcp } : {}),
      signingKey: await loadTraceKey(io.env, { create: true }),
      redactor: io.redactor,
      debug: { breakpoints: session.breakpoints, onBreak: session.onBreak, breakCondition: session.condition },
    });
    return engine.run(flags.task!);
  });
}

/**
 * `qitos debug <trace>`: the recorded run through replay (recorded model outputs and tool results, recorded edits
 * and skips served again). Drift is allowed: after an edit the recording no longer matches what the run does, and
 * the rest of the replay still serves it; fork the new trace to let the model answer from there.
 */
async function debugTrace(
  io: CliIO,
  path: string,
  flags: DebugFlags,
  session: DebugSession,
): Promise<RunResult<State>> {
  if (flags.task !== undefined || flags.model !== undefined)
    throw new AppError('--task and --model are for a live run; a recorded run replays its own task and model outputs');
  const replay = await replaySession(io, path, {
    mode: 'debug',
    flags,
    settings: flags,
    hooks: viewHooks(io, flags),
    debug: { breakpoints: session.breakpoints, onBreak: session.onBreak, breakCondition: session.condition },
  });
  const { manifest: m, trace } = replay.recorded;
  io.out(
    `debugging a replay of ${replay.workflow ? 'workflow run ' : ''}${m.runId} (${trace.steps.length} recorded steps)\n`,
  );
  return replay.run();
}
