import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { QitosError, markErrorClass, type EventRecord, type Manifest, type StepRecord } from '../core/index.js';
import { checkManifestSignature } from './manifest-signature.js';
import { fileSha256, isDigest, traceFilesProblem } from './trace-files.js';
import {
  MAX_JSON_DEPTH,
  Manifest as ManifestSchema,
  StepRecord as StepRecordSchema,
  TRACE_SCHEMA,
  TRACE_VERSION,
  formatZodIssue,
  nestsDeeperThan,
} from '../core/index.js';

/** A trace read from disk. `warnings` lists what the reader tolerated (e.g. a last line cut by a crash). */
export interface Trace {
  dir: string;
  manifest: Manifest;
  events: EventRecord[];
  steps: StepRecord[];
  warnings: string[];
  /**
   * With a key to check against (`readTrace(dir, { key })`): whether the trace is signed whole under it. `signed`: the
   * manifest's signature is valid and every file matches the digest it signs; `unsigned`: no signature; `mismatch`:
   * a signature this key did not make (or the manifest was edited); `files-changed`: a valid signature, but a file of
   * the folder was changed, added or removed since (`signatureProblem` says which); `manifest-only`: a valid
   * signature over a manifest without file digests (written before traces were signed whole), so nothing vouches
   * for its other files.
   */
  signature?: TraceSignature;
  /** With `signature: 'files-changed'`: which file differs and how. */
  signatureProblem?: string;
}

/** How a trace's signature checks against a key (see `Trace.signature`). */
export type TraceSignature = 'signed' | 'unsigned' | 'mismatch' | 'files-changed' | 'manifest-only';

/** How to read a trace. */
export interface ReadTraceOptions {
  /** Validate every step line against the schema (default true). */
  validateSteps?: boolean;
  /** Check the manifest's signature against this key (the result is `Trace.signature`). */
  key?: Uint8Array;
}

/** Raised for anything that is not a readable trace; the message is one line naming the problem. */
export class TraceError extends QitosError {
  static {
    markErrorClass(this, 'TraceError');
  }

  constructor(message: string) {
    super('trace', message);
    this.name = 'TraceError';
  }
}

/** Reads and validates a trace folder. */
export async function readTrace(dir: string, options: ReadTraceOptions = {}): Promise<Trace> {
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new TraceError(`not a trace: ${dir} is not a folder`);
  const { manifest, raw } = await readManifestFile(dir);
  const warnings: string[] = [];
  const [eventBytes, stepBytes] = await Promise.all([
    readOptional(join(dir, 'events.jsonl')),
    readOptional(join(dir, 'steps.jsonl')),
  ]);
  const events = parseJsonl<EventRecord>(eventBytes.toString('utf8'), 'events.jsonl', warnings);
  const rawSteps = parseJsonl<StepRecord>(stepBytes.toString('utf8'), 'steps.jsonl', warnings);
  const steps = options.validateSteps === false ? rawSteps : rawSteps.map((s, i) => validateStep(s, i));
  const trace: Trace = { dir, manifest, events, steps, warnings };
  if (options.key)
    Object.assign(
      trace,
      checkSignature(dir, raw, options.key, {
        'events.jsonl': fileSha256(eventBytes),
        'steps.jsonl': fileSha256(stepBytes),
      }),
    );
  return trace;
}

/** Whether the trace in `dir` is signed whole under `key` (its manifest as parsed, `known` digests of files already read). */
function checkSignature(
  dir: string,
  raw: unknown,
  key: Uint8Array,
  known: Record<string, string>,
): Pick<Trace, 'signature' | 'signatureProblem'> {
  const signature = checkManifestSignature(raw, key);
  if (signature !== 'signed') return { signature };
  const files = (raw as { files?: unknown }).files;
  if (!isDigest(files)) return { signature: 'manifest-only' };
  const problem = traceFilesProblem(dir, files, known);
  return problem === undefined ? { signature } : { signature: 'files-changed', signatureProblem: problem };
}

/** Reads and validates only the manifest of a trace folder. */
export async function readManifest(dir: string): Promise<Manifest> {
  return (await readManifestFile(dir)).manifest;
}

/** The manifest of a trace folder, validated, and as parsed (what its signature covers). */
async function readManifestFile(dir: string): Promise<{ manifest: Manifest; raw: unknown }> {
  const text = await readFile(join(dir, 'manifest.json'), 'utf8').catch(() => undefined);
  if (text === undefined) throw new TraceError(`not a trace: no manifest.json in ${dir}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new TraceError(`corrupt trace: manifest.json in ${dir} is not JSON (${(err as Error).message})`);
  }
  if (nestsDeeperThan(raw))
    throw new TraceError(`corrupt trace: manifest.json in ${dir} nests deeper than ${MAX_JSON_DEPTH} levels`);
  const head = raw as { schema?: unknown; version?: unknown };
  if (head?.schema !== TRACE_SCHEMA)
    throw new TraceError(
      `not a trace: manifest.json in ${dir} has schema ${JSON.stringify(head?.schema)}, expected "${TRACE_SCHEMA}"`,
    );
  if (typeof head.version === 'number' && head.version > TRACE_VERSION) {
    throw new TraceError(
      `trace ${dir} has schema version ${head.version}, newer than this qitos supports (${TRACE_VERSION}); upgrade qitos-ts`,
    );
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success)
    throw new TraceError(`corrupt trace: manifest.json in ${dir}: ${formatZodIssue(parsed.error.issues[0])}`);
  return { manifest: parsed.data, raw };
}

function validateStep(s: StepRecord, i: number): StepRecord {
  const r = StepRecordSchema.safeParse(s);
  if (!r.success)
    throw new TraceError(`corrupt trace: steps.jsonl line ${i + 1}: ${formatZodIssue(r.error.issues[0])}`);
  return r.data;
}

async function readOptional(path: string): Promise<Buffer> {
  return readFile(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  });
}

/**
 * Parses JSONL. A last line without its newline that does not parse was cut by a crash: it is dropped
 * with a warning. Any other bad line is corruption and an error naming the file and line, as is a line that
 * nests deeper than MAX_JSON_DEPTH (what reads it later would overflow the stack).
 */
export function parseJsonl<T>(text: string, name: string, warnings: string[]): T[] {
  const out: T[] = [];
  if (!text) return out;
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n');
  if (endsClean) lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lines.length - 1 && !endsClean) {
        warnings.push(`${name}: dropped line ${i + 1}, cut off mid-write`);
        break;
      }
      throw new TraceError(`corrupt trace: ${name} line ${i + 1} is not JSON`);
    }
    if (nestsDeeperThan(value))
      throw new TraceError(`corrupt trace: ${name} line ${i + 1} nests deeper than ${MAX_JSON_DEPTH} levels`);
    out.push(value as T);
  }
  return out;
}
