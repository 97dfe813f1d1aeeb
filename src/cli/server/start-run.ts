import { AbortedError, Task, newId, type HookEvent, type State } from '../../core/index.js';
import type { Engine } from '../../engine/engine.js';
import type { ChatTask } from './chat-request.js';
import { LiveRun, type LiveRuns } from './live-runs.js';

/**
 * Starts a run of `engine` on a chat task and resolves once it has a run id (its first event), with the run
 * registered in `runs` until it ends, when it gives back the slot the caller reserved (also when it fails to start). The run is read from the engine's stream at its own pace and its events are
 * kept on the LiveRun for any number of readers. `signal` (the client's) aborts it as `interrupted`.
 */
export async function startRun(engine: Engine<State>, chat: ChatTask, runs: LiveRuns, signal: AbortSignal): Promise<LiveRun> {
  try {
    return await started(engine, chat, runs, signal);
  } catch (err) {
    runs.release();
    throw err;
  }
}

function started(engine: Engine<State>, chat: ChatTask, runs: LiveRuns, signal: AbortSignal): Promise<LiveRun> {
  const task = Task.parse({ id: newId('task'), objective: chat.objective });
  const controller = new AbortController();
  const onAbort = () => controller.abort(new AbortedError('the client disconnected'));
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  const resumeFrom = chat.history.length ? { resumeFrom: { state: { ...engine.agent.initState(task), messages: chat.history }, step: 0 } } : {};
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
    })()
      .catch(reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
