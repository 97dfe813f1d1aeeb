// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { McpMessageTooLargeError } from './capped-fetch.js';

/**
 * Splits a stdio byte stream into newline-delimited JSON-RPC messages, in linear time: chunks are kept as they
 * arrive, only the new chunk is searched for a newline, and a message is joined once when it is complete.
 * It replaces the SDK stdio transport's ReadBuffer, which joins and searches the whole buffer on every chunk
 * (quadratic: about 13 s to take in one 10 MB message on the development machine; see docs/performance.md).
 * A message longer than `maxBytes` throws McpMessageTooLargeError, and what was buffered is dropped.
 */
export class LineReadBuffer<M> {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly lines: Buffer[] = [];

  constructor(
    private readonly maxBytes: number,
    private readonly parse: (line: string) => M,
  ) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      this.push(chunk.subarray(start, nl));
      this.lines.push(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size));
      this.chunks = [];
      this.size = 0;
      start = nl + 1;
    }
    if (start < chunk.length) this.push(chunk.subarray(start));
  }

  /** The next complete message, or null when none is complete yet. A line that is not a message throws (the transport reports it). */
  readMessage(): M | null {
    const line = this.lines.shift();
    if (line === undefined) return null;
    return this.parse(line.toString('utf8').replace(/\r$/, ''));
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.lines.length = 0;
  }

  private push(part: Buffer): void {
    if (this.size + part.length > this.maxBytes) {
      this.clear();
      throw new McpMessageTooLargeError(this.maxBytes);
    }
    this.chunks.push(part);
    this.size += part.length;
  }
}
