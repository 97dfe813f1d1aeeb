import type { EventRecord, Manifest, StepRecord } from './trace.js';

/**
 * Receives one run's trace records as the trace writer writes them, already redacted (what a live exporter such as
 * the OpenTelemetry one turns into spans). Its methods must not throw and must return quickly: the writer calls
 * them on the run's path (one that throws anyway is dropped for the rest of the run and named in its failures).
 */
export interface RunTap {
  /** One `events.jsonl` line, with its `seq`; `line` is its JSON as written (without the newline), when known. */
  event(record: EventRecord, line?: string): void;
  /** One `steps.jsonl` line (with its state diff); `line` is its JSON as written, when known. */
  step(record: StepRecord, line?: string): void;
  /** The final manifest (status, summary); the run's last record. */
  finish(manifest: Manifest): void;
}

/**
 * Watches the traces of runs: `open` is called with each run's first manifest (status `running`) and returns what
 * receives that run's records, or undefined to skip it. One tap serves many runs, also concurrent ones, and the
 * sub-runs of a traced run (`ParentLink.tap`).
 */
export interface TraceTap {
  /**
   * `dir`: the run's trace folder, where the writer appends the records it also hands to the returned tap (a tap may
   * read them from there instead); absent when the records come from elsewhere (a recorded trace being exported).
   */
  open(manifest: Manifest, dir?: string): RunTap | undefined;
}
