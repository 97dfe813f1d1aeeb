/** The process signals a run ends on, and the exit status a second one forces (128 + the signal number). */
const EXIT_STATUS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** A signal the engine handles. */
export type StopSignal = keyof typeof EXIT_STATUS;

/**
 * Watches SIGINT, SIGTERM and SIGHUP for one run (Ctrl-C, `kill`, a closed terminal or a CI runner that
 * stops the job all look alike to it). The first signal calls `stop`: the run aborts, ends `interrupted` and
 * finalizes its trace, and the env kills its commands. A second signal, while the run is still ending, means
 * "now": `kill` runs, when given (it must kill the run's processes synchronously), and the process exits at once with
 * 128 + the signal number, without waiting for the trace. Returns the clean-up that removes the listeners
 * (after it, the signals have their default effect again).
 */
export function watchStopSignals(stop: (signal: StopSignal) => void, kill?: () => void): () => void {
  let stopping = false;
  const listeners = (Object.keys(EXIT_STATUS) as StopSignal[]).map((sig) => {
    const onSignal = () => {
      if (!stopping) {
        stopping = true;
        stop(sig);
        return;
      }
      try {
        kill?.();
      } finally {
        process.exit(EXIT_STATUS[sig]);
      }
    };
    process.on(sig, onSignal);
    return () => process.removeListener(sig, onSignal);
  });
  return () => listeners.forEach((remove) => remove());
}
