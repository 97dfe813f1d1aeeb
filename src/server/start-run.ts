import { Task, newId, type HookEvent, type State } from '../core/index.js';
import type { Engine } from '../engine/engine.js';
import type { ChatTask } from './chat-request.js';
import { LiveRun, type LiveRuns } from './live-runs.js';

/**
 * Starts a run of `engine` on a chat task and resolves once it has a run id (its first event), with the run
 * registered in `runs` until it ends, when it gives back the slot the caller reserved (also when it fails to start).
 * The run is read from the engine's stream at its own pace and its events are kept on the LiveRun for any number
 * of readers; `LiveRun.abort` ends it `interrupted` (a client that went away, shutdown).
 */
export async function startRun(engine: Engine<State>, chat: ChatTask, runs: LiveRuns): Promise<LiveRun> {
  try {
    return await started(engine, chat, runs);
  } catch (err) {
    runs.release();
    throw err;
  }
}

function started(engine: Engine<State>, chat: ChatTask, runs: LiveRuns): Promise<LiveRun> {
  const task = { id: newId('task'), objective: chat.objective };
  const controller = new AbortController();
  // The engine validates the task; only a conversation needs it parsed here, for the state it continues.
  const resumeFrom = chat.history.length
    ? { resumeFrom: { state: { ...engine.agent.initState(Task.parse(task)), messages: chat.history }, step: 0 } }
    : {};
  const stream = engine.stream(task, { signal: controller.signal, ...resumeFrom });
  const abort = (reason: Error) => controller.abort(reason);
  return new Promise<LiveRun>((resolve, reject) => {
    let live: LiveRun | undefined;
    const early: HookEvent[] = [];
    const open = (runId: string): LiveRun => {
      live = new LiveRun(runId, abort);
      for (const e of early) live.push(e);
      runs.add(live);
      resolve(live);
      return live;
    };
    (async () => {
      for await (const event of stream) {
        if (event.type === 'result') {
          const run = live ?? open(event.result.runId);
          runs.remove(run.runId);
          runs.release();
          run.finish(event.result);
        } else if (live) live.push(event);
        else if (event.type === 'run_start' || event.type === 'run_end') open(event.runId).push(event);
        else early.push(event);
      }
    })().catch(reject);
  });
}
