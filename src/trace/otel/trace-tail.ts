import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** The two JSONL files of a trace folder a tail reads, in the order it reads them. */
const FILES = ['events.jsonl', 'steps.jsonl'] as const;
export type TailedFile = (typeof FILES)[number];

/** One file followed: its descriptor (opened once the writer has made the file), where reading goes on, a part line. */
interface Followed {
  fd: number | undefined;
  offset: number;
  decoder: StringDecoder;
  partial: string;
}

const CHUNK = 64 * 1024;

/**
 * Follows a trace folder's `events.jsonl` and `steps.jsonl` as a trace writer appends to them, handing over each
 * complete line once (a line the writer is still writing waits for its newline). The export worker reads a live
 * run's records this way, so the run's thread hands it nothing but the folder.
 */
export class TraceTail {
  private readonly files: Followed[] = FILES.map(() => ({
    fd: undefined,
    offset: 0,
    decoder: new StringDecoder('utf8'),
    partial: '',
  }));
  private readonly buf = Buffer.allocUnsafe(CHUNK);

  constructor(readonly dir: string) {}

  /** Reads what was appended since the last call: every new complete line of events.jsonl, then of steps.jsonl. */
  read(onLine: (file: TailedFile, line: string) => void): void {
    FILES.forEach((name, i) => {
      const f = this.files[i]!;
      if (f.fd === undefined) {
        try {
          f.fd = openSync(join(this.dir, name), 'r');
        } catch (err) {
          // The writer opens its files just after it announces the run: not there yet is "nothing yet".
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw err;
        }
      }
      let text = '';
      for (let n; (n = readSync(f.fd, this.buf, 0, CHUNK, f.offset)) > 0; f.offset += n)
        text += f.decoder.write(this.buf.subarray(0, n));
      if (!text) return;
      const lines = (f.partial + text).split('\n');
      f.partial = lines.pop()!;
      for (const line of lines) if (line) onLine(name, line);
    });
  }

  /** Closes the files. */
  close(): void {
    for (const f of this.files) if (f.fd !== undefined) closeSync(f.fd);
  }
}
