import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { ResultLine } from './result-line.js';
import { issueText } from './task-file.js';

/** What reading a results file found. */
export interface ResultsRead {
  results: ResultLine[];
  /** Lines tolerated (a last line cut mid-write). */
  warnings: string[];
  /** Byte length of the complete lines (where the next append must start). */
  validBytes: number;
  totalBytes: number;
}

/**
 * Reads `results.jsonl`. A last line without its newline was cut by a crash (kill -9, power loss) and is dropped
 * with a warning; any other bad line is an error naming the line and field.
 */
export function readResults(file: string): ResultsRead {
  if (!existsSync(file)) return { results: [], warnings: [], validBytes: 0, totalBytes: 0 };
  const buf = readFileSync(file);
  const end = buf.lastIndexOf(0x0a) + 1;
  const warnings: string[] = [];
  const text = buf.subarray(0, end).toString('utf8');
  if (end < buf.length)
    warnings.push(`${file}: dropped an incomplete last line (${buf.length - end} bytes, cut mid-write)`);
  const results: ResultLine[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new Error(`${file} line ${i + 1}: not JSON`);
    }
    const r = ResultLine.safeParse(raw);
    if (!r.success) throw new Error(`${file} line ${i + 1}: ${issueText(r.error)}`);
    results.push(r.data);
  });
  return { results, warnings, validBytes: end, totalBytes: buf.length };
}

/** Cuts an incomplete last line off, so the next append starts on a fresh line. */
export function repairResults(file: string, read: ResultsRead): void {
  if (read.validBytes === read.totalBytes) return;
  const fd = openSync(file, 'r+');
  try {
    ftruncateSync(fd, read.validBytes);
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends one result as one line with one synchronous write: JS runs it to completion, so an abort or SIGINT
 * (handled on the event loop) can never leave half a line.
 */
export function appendResult(file: string, line: ResultLine): void {
  appendFileSync(file, JSON.stringify(line) + '\n');
}

/**
 * An open results file for a run: one synchronous append per line on a descriptor kept open (no open/close per
 * trial). Close it when the run ends.
 */
export class ResultsAppender {
  private fd: number | undefined;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
  }

  append(line: ResultLine): void {
    if (this.fd === undefined) throw new Error(`results file ${this.file} is closed`);
    writeSync(this.fd, JSON.stringify(line) + '\n');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
