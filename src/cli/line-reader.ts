// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { createInterface, type Interface } from 'node:readline';
import type { Readable } from 'node:stream';

/**
 * Lines of an input one at a time, on request: a terminal or a pipe (a scripted session writes all its lines at
 * once; readline's `question` would drop the lines that come before it asks, so they queue here). `next`
 * resolves null at the end of the input.
 */
export class LineReader {
  private readonly rl: Interface;
  private readonly queue: string[] = [];
  private waiting: ((line: string | null) => void) | undefined;
  private closed = false;
  /** True when the input is a terminal (which echoes what is typed). */
  readonly terminal: boolean;

  constructor(input: Readable) {
    this.terminal = (input as { isTTY?: boolean }).isTTY === true;
    this.rl = createInterface({ input, terminal: false });
    this.rl.on('line', (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w(line);
      } else this.queue.push(line);
    });
    this.rl.on('close', () => {
      this.closed = true;
      this.waiting?.(null);
      this.waiting = undefined;
    });
  }

  /** The next line, or null once the input ended. */
  next(): Promise<string | null> {
    const line = this.queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Stops reading (the input stays open for its owner). */
  close(): void {
    this.rl.close();
  }
}
