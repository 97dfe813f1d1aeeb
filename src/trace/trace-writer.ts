import { createHash, type Hash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { EventRecord, Manifest, Redactor, RunTap, StepRecord, TraceTap } from '../core/index.js';
import { errorMessage } from '../core/index.js';
import { manifestSignature } from './manifest-signature.js';
import { fileSha256, folderDigests } from './trace-files.js';

/** How a TraceWriter writes, besides where. */
export interface TraceWriterOptions {
  /** Signs the manifest (over the digests of every file of the folder). */
  signingKey?: Uint8Array;
  /** No secret it holds reaches a file. */
  redactor?: Redactor;
  /** Called with this folder and the sha-256 of each manifest written (a parent run's recorder takes it). */
  onManifest?: (dir: string, sha256: string) => void;
  /** Gets each record as written (redacted): what live telemetry exports. */
  tap?: TraceTap;
}

/**
 * Writes one run's trace folder: `manifest.json`, `events.jsonl`, `steps.jsonl`, and `artifacts/` when an env leaves files.
 * Lines are buffered in memory and appended at step boundaries (`flush`); the manifest is
 * written at start and replaced atomically (temp file + rename) whenever it changes. Every manifest lists the sha-256
 * of every other file of the folder (`files`: the JSONL files hashed as they are appended, artifacts as they are
 * written, child traces by their manifest), so with a signing key its `signature` covers the whole trace
 * (docs/security.md: which traces the CLI trusts). With a redactor, no secret it holds reaches a file: each line,
 * the manifest and text artifacts pass through it as they are written (and are hashed as written). With a tap, each
 * record also goes to it as written (redacted): what live telemetry exports.
 */
export class TraceWriter {
  private eventsFd: number | undefined;
  private stepsFd: number | undefined;
  private eventBuf = '';
  private stepBuf = '';
  private seq = 0;
  /** Running digests of what was appended to events.jsonl and steps.jsonl, and the digests of the artifacts written. */
  private readonly eventsHash: Hash = createHash('sha256');
  private readonly stepsHash: Hash = createHash('sha256');
  private readonly artifactHashes: Record<string, string> = {};
  /** True while the first manifest of a folder this writer created is written (nothing else can be in it yet). */
  private fresh = false;
  /** Digests of child traces' manifests (`threads/<id>/manifest.json`), as their writers reported them. */
  private readonly childHashes: Record<string, string> = {};
  stepCount = 0;
  /** The run's tap, once `start` opened it; dropped when it throws. */
  private runTap: RunTap | undefined;
  /** Why the tap was dropped (it threw), for the run's failures; undefined while it works. */
  tapFailure: string | undefined;

  private readonly signingKey: Uint8Array | undefined;
  private readonly redactor: Redactor | undefined;
  private readonly onManifest: ((dir: string, sha256: string) => void) | undefined;
  private readonly tap: TraceTap | undefined;

  constructor(
    readonly dir: string,
    options: TraceWriterOptions = {},
  ) {
    ({ signingKey: this.signingKey, redactor: this.redactor, onManifest: this.onManifest, tap: this.tap } = options);
  }

  /**
   * Records the sha-256 of a child trace's manifest as the child's writer wrote it, so this folder's digest need not
   * read it back. A folder outside this one is ignored; a child that never reports is read from disk as before.
   */
  childManifest(childDir: string, sha256: string): void {
    const rel = relative(this.dir, childDir);
    if (!rel || rel.startsWith('..') || rel.includes(':')) return;
    this.childHashes[`${rel.split(sep).join('/')}/manifest.json`] = sha256;
  }

  /** Creates the folder, writes the first manifest and opens the JSONL files. */
  start(manifest: Manifest): void {
    // A folder made just now holds nothing but what this writer writes: its first manifest need not list it.
    this.fresh = mkdirSync(this.dir, { recursive: true }) !== undefined;
    const written = this.writeManifest(manifest);
    this.fresh = false;
    if (this.tap) this.tapped(() => (this.runTap = this.tap!.open(written, this.dir)));
    this.eventsFd = openSync(join(this.dir, 'events.jsonl'), 'a');
    this.stepsFd = openSync(join(this.dir, 'steps.jsonl'), 'a');
  }

  /** Buffers one event line (seq is assigned here). */
  event(rec: Omit<EventRecord, 'seq'>): void {
    const { text, written } = this.line({ seq: this.seq++, ...rec });
    this.eventBuf += text + '\n';
    if (this.runTap) this.tapped(() => this.runTap?.event(written, text));
  }

  /** Buffers one step line. */
  step(rec: StepRecord): void {
    const { text, written } = this.line(rec);
    this.stepBuf += text + '\n';
    this.stepCount++;
    if (this.runTap) this.tapped(() => this.runTap?.step(written, text));
  }

  /** Calls the tap; one that throws is dropped for the rest of the run (and named in its failures by the recorder). */
  private tapped(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.runTap = undefined;
      this.tapFailure = `the trace tap failed and was dropped: ${errorMessage(err)}`;
    }
  }

  /** Appends buffered lines to disk. */
  flush(): void {
    if (this.eventBuf && this.eventsFd !== undefined) {
      const bytes = Buffer.from(this.eventBuf, 'utf8');
      this.eventsHash.update(bytes);
      writeSync(this.eventsFd, bytes);
      this.eventBuf = '';
    }
    if (this.stepBuf && this.stepsFd !== undefined) {
      const bytes = Buffer.from(this.stepBuf, 'utf8');
      this.stepsHash.update(bytes);
      writeSync(this.stepsFd, bytes);
      this.stepBuf = '';
    }
  }

  /** Writes `artifacts/<name>` (the caller checked the name) and returns its size in bytes. */
  artifact(name: string, content: string | Uint8Array): number {
    const dir = join(this.dir, 'artifacts');
    mkdirSync(dir, { recursive: true });
    const bytes =
      typeof content === 'string'
        ? Buffer.from(this.redactor ? this.redactor.redact(content) : content, 'utf8')
        : content;
    writeFileSync(join(dir, name), bytes);
    this.artifactHashes[`artifacts/${name}`] = fileSha256(bytes);
    return bytes.length;
  }

  /** Flushes, closes the files and replaces the manifest atomically. */
  finish(manifest: Manifest): void {
    this.flush();
    for (const fd of [this.eventsFd, this.stepsFd]) if (fd !== undefined) closeSync(fd);
    this.eventsFd = this.stepsFd = undefined;
    const written = this.writeManifest(manifest);
    if (this.runTap) this.tapped(() => this.runTap?.finish(written));
    this.runTap = undefined;
  }

  /**
   * One JSONL line (without its newline) and the record as written; re-encoded from a redacted copy only when the
   * line holds a secret (rare, so cheap).
   */
  private line<T extends object>(rec: T): { text: string; written: T } {
    const text = JSON.stringify(rec);
    if (!this.redactor?.finds(text)) return { text, written: rec };
    const written = this.redactor.redactValue(rec);
    return { text: JSON.stringify(written), written };
  }

  /** Writes the manifest (redacted, with its file digests and signature) and returns it as written. */
  private writeManifest(original: Manifest): Manifest {
    const manifest = this.redactor ? this.redactor.redactValue(original) : original;
    const tmp = join(this.dir, `.manifest.${process.pid}.tmp`);
    const own = {
      'events.jsonl': this.eventsHash.copy().digest('hex'),
      'steps.jsonl': this.stepsHash.copy().digest('hex'),
      ...this.artifactHashes,
    };
    const files = this.fresh ? own : folderDigests(this.dir, own, this.childHashes);
    const withFiles: Manifest = { ...manifest, files };
    const body = this.signingKey
      ? { ...withFiles, signature: manifestSignature(withFiles, this.signingKey) }
      : withFiles;
    const bytes = Buffer.from(JSON.stringify(body, null, 2) + '\n', 'utf8');
    writeFileSync(tmp, bytes);
    renameSync(tmp, join(this.dir, 'manifest.json'));
    this.onManifest?.(this.dir, fileSha256(bytes));
    return body;
  }
}
