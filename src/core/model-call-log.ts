import type { ModelRequest, RequestHashes } from './model.js';

/**
 * What every copy of one model call shares, for its caller to read once the call returns: what the model finally
 * received, how many attempts it took and how long it took. Each field has one writer, named here: middleware pass
 * changed copies of a call on, so only the log tells the caller what reached the model.
 */
export class ModelCallLog {
  private sentRequest: ModelRequest | undefined;
  private sentHashes: RequestHashes | undefined;
  private attemptCount = 0;
  private wallMs: number | undefined;

  /** The request as the model received it (after every middleware); undefined until an attempt reached the model. */
  get request(): ModelRequest | undefined {
    return this.sentRequest;
  }

  /** The hashes of `request` (what a replay compares with its recording). */
  get requestHashes(): RequestHashes | undefined {
    return this.sentHashes;
  }

  /** Attempts that reached the model (1 without retries). */
  get attempts(): number {
    return this.attemptCount;
  }

  /** Wall time of the call in ms, retries included; undefined when nothing timed it. */
  get latencyMs(): number | undefined {
    return this.wallMs;
  }

  /** Written by `ModelChain.reachModel`, the innermost step of a chain, on each attempt: what the model receives. */
  attempted(request: ModelRequest, hashes: RequestHashes | undefined): void {
    this.sentRequest = request;
    this.sentHashes = hashes;
    this.attemptCount++;
  }

  /** Written by the run's accounting middleware (`src/engine/run-middleware.ts`) once the call returned. */
  timed(latencyMs: number): void {
    this.wallMs = latencyMs;
  }
}
