import { createHash } from 'node:crypto';
import type { ActionResult, ModelMessage, Policy, PolicyContext, State, StopVerdict } from '../../core/index.js';
import { canonicalJson } from '../../core/index.js';

/** Options of `doomLoop()`. */
export interface DoomLoopOptions {
  /** How many times a pattern must repeat back to back to count as a loop (integer >= 2; default 3). */
  threshold?: number;
  /** Longest cycle looked for: 1 catches A,A,A; 2 also A,B,A,B; ... (integer >= 1; default 4). */
  maxCycleLength?: number;
  /** `'stop'` ends the run with `doom_loop`; `'warn'` first tells the model, and stops if the loop goes on (default `'stop'`). */
  onDetect?: 'stop' | 'warn';
  /**
   * What makes two calls "the same": `'call'` = tool + canonical arguments (default); `'call+result'` = also the same
   * result, so a poll whose output changes is not a loop.
   */
  compare?: 'call' | 'call+result';
  /** Tools whose arguments drift trivially (timestamps, ids): compared by name + result, arguments ignored. */
  nameOnly?: readonly string[];
  /** With `'warn'`: how many warnings before a detection stops the run (default 1). */
  maxWarnings?: number;
  /** The note injected into the next prompt on a warning (default: `DOOM_LOOP_NOTE`). */
  note?: (detection: DoomLoopDetection) => string;
}

/** A loop the detector found: the repeated block and where it happened. */
export interface DoomLoopDetection {
  /** `repeat`: one call repeated; `cycle`: a block of 2+ calls repeated. */
  pattern: 'repeat' | 'cycle';
  /** True when some call of the block was compared by its result (same action, same observation). */
  noProgress: boolean;
  /** The repeated block, as readable call labels, e.g. `read(path="a")`. */
  cycle: string[];
  repeats: number;
  /** First and last step of the repetitions, and every step involved. */
  fromStep: number;
  toStep: number;
  steps: number[];
  /** One line naming the pattern (the stop message). */
  message: string;
}

/** The default warning note: tells the model it repeats itself and what happens next. */
export function DOOM_LOOP_NOTE(d: DoomLoopDetection): string {
  const what = d.pattern === 'repeat' ? `the same call ${d.cycle[0]}` : `the cycle [${d.cycle.join(', ')}]`;
  return (
    `Note from the run supervisor: you are repeating yourself. You made ${what} ${d.repeats} times in a row ` +
    `(steps ${d.fromStep}-${d.toStep})${d.noProgress ? ' and it returned the same result each time' : ''}. ` +
    'Repeating it will not give a different outcome. Change your approach: use different arguments or another tool, ' +
    're-read the last results, or give your final answer. If the loop goes on, the run will be stopped.'
  );
}

/** One call as the detector remembers it. */
interface CallSig {
  key: string;
  name: string;
  args: string;
  byResult: boolean;
  step: number;
}

/**
 * Length of the shortest block (<= maxCycleLength) that the sequence ends with, repeated `threshold` times back
 * to back; undefined when there is none. Costs O(maxCycleLength^2 * threshold) whatever the sequence length.
 */
export function findRepetition(keys: readonly string[], threshold: number, maxCycleLength: number): number | undefined {
  const n = keys.length;
  for (let len = 1; len <= maxCycleLength; len++) {
    const span = len * threshold;
    if (span > n) break;
    // A suffix of length len*threshold that has period len is the block repeated threshold times.
    let periodic = true;
    for (let i = n - span; i < n - len; i++) {
      if (keys[i] !== keys[i + len]) {
        periodic = false;
        break;
      }
    }
    if (periodic) return len;
  }
  return undefined;
}

/**
 * Doom-loop detection as a policy. It watches the calls of every step (decide path and model path alike: it reads
 * the step's decision and results in CHECK_STOP) and keeps only a bounded window of recent call signatures
 * (maxCycleLength * threshold), so its cost per step does not grow with the history.
 *
 * It catches the same call repeated across steps (arguments compared canonically: key order and whitespace do not
 * matter), cycles such as A,B,A,B up to `maxCycleLength`, and no-progress loops (same action, same result; by name
 * only for `nameOnly` tools). On detection it ends the run with `doom_loop` and a message naming the pattern, or,
 * with `onDetect: 'warn'`, injects a note into the next prompt and stops only if the loop goes on for another
 * full cycle. Never asks anyone anything, so headless runs never hang.
 *
 * The object returned is a factory: every run gets its own detector (`forRun`), so runs never share a window.
 * Events: `doom_loop:warn`, `doom_loop:note` (note injected), `doom_loop:stop`.
 */
export function doomLoop<S extends State = State>(options: DoomLoopOptions = {}): Policy<S> {
  const settings: LoopSettings = {
    threshold: options.threshold ?? 3,
    maxCycleLength: options.maxCycleLength ?? 4,
    onDetect: options.onDetect ?? 'stop',
    compare: options.compare ?? 'call',
    maxWarnings: options.maxWarnings ?? 1,
    nameOnly: new Set(options.nameOnly ?? []),
    note: options.note ?? DOOM_LOOP_NOTE,
  };
  const { threshold, maxCycleLength, onDetect, compare, maxWarnings } = settings;
  if (!Number.isInteger(threshold) || threshold < 2)
    throw new Error(`doomLoop: threshold must be an integer >= 2, got ${threshold}`);
  if (!Number.isInteger(maxCycleLength) || maxCycleLength < 1)
    throw new Error(`doomLoop: maxCycleLength must be an integer >= 1, got ${maxCycleLength}`);
  if (onDetect !== 'stop' && onDetect !== 'warn')
    throw new Error(`doomLoop: onDetect must be "stop" or "warn", got ${JSON.stringify(onDetect)}`);
  if (compare !== 'call' && compare !== 'call+result')
    throw new Error(`doomLoop: compare must be "call" or "call+result", got ${JSON.stringify(compare)}`);
  if (!Number.isInteger(maxWarnings) || maxWarnings < 1)
    throw new Error(`doomLoop: maxWarnings must be an integer >= 1, got ${maxWarnings}`);
  return { name: 'doom_loop', forRun: () => new DoomLoopRun<S>(settings) };
}

/** The options of `doomLoop`, checked and with their defaults. */
interface LoopSettings {
  threshold: number;
  maxCycleLength: number;
  onDetect: 'stop' | 'warn';
  compare: 'call' | 'call+result';
  maxWarnings: number;
  nameOnly: ReadonlySet<string>;
  note: (detection: DoomLoopDetection) => string;
}

/** The doom-loop detector of one run: its window of recent calls, its warnings, the note it owes the next prompt. */
class DoomLoopRun<S extends State> implements Policy<S> {
  readonly name = 'doom_loop';
  private readonly window: CallSig[] = [];
  /** Calls seen in this run (position of the newest + 1). */
  private count = 0;
  private warnings = 0;
  /** Position (count) and step at the last warning. */
  private warnedAt = -1;
  private warnedStep = 0;
  /** The note to put into the next prompt, once. */
  private note: string | undefined;

  constructor(private readonly settings: LoopSettings) {}

  checkStop(ctx: PolicyContext<S>): StopVerdict | void {
    const d = ctx.decision;
    if (!d || d.mode !== 'act') return;
    const results = ctx.results ?? [];
    const windowSize = this.settings.maxCycleLength * this.settings.threshold;
    let verdict: StopVerdict | undefined;
    for (const action of d.actions) {
      const result = results.find((r) => r.actionId === action.id);
      this.window.push(this.signature(action.name, action.args, result, ctx.step));
      if (this.window.length > windowSize) this.window.shift();
      this.count++;
      verdict ??= this.detect(ctx);
    }
    return verdict;
  }

  beforeModel(messages: ModelMessage[], ctx: PolicyContext<S>) {
    if (this.note === undefined) return;
    const note = this.note;
    this.note = undefined;
    ctx.emit('doom_loop:note', { policy: 'doom_loop', note });
    return { messages: [...messages, { role: 'user' as const, content: [{ type: 'text' as const, text: note }] }] };
  }

  private signature(
    name: string,
    args: Record<string, unknown>,
    result: ActionResult | undefined,
    step: number,
  ): CallSig {
    const nameOnly = this.settings.nameOnly.has(name);
    const byResult = nameOnly || this.settings.compare === 'call+result';
    const argText = nameOnly ? '' : canonicalJson(args);
    const key = byResult ? `${name}\u0000${argText}\u0000${resultHash(result)}` : `${name}\u0000${argText}`;
    return { key, name, args: nameOnly ? '…' : argText, byResult, step };
  }

  private detect(ctx: PolicyContext<S>): StopVerdict | undefined {
    const { threshold, maxCycleLength, onDetect, maxWarnings } = this.settings;
    const len = findRepetition(
      this.window.map((s) => s.key),
      threshold,
      maxCycleLength,
    );
    if (len === undefined) return undefined;
    // After a warning, the same loop is still in the window: it only counts once the model has gone round it again.
    if (this.warnings > 0 && this.count - this.warnedAt < len) return undefined;
    const detection = this.describe(this.window.slice(this.window.length - len * threshold), len);
    const data = {
      policy: 'doom_loop',
      pattern: detection.pattern,
      noProgress: detection.noProgress,
      cycle: detection.cycle,
      cycleLength: len,
      repeats: threshold,
      fromStep: detection.fromStep,
      toStep: detection.toStep,
      steps: detection.steps,
      warnings: this.warnings,
    };
    if (onDetect === 'warn' && this.warnings < maxWarnings) {
      this.warnings++;
      this.warnedAt = this.count;
      this.warnedStep = ctx.step;
      this.note = this.settings.note(detection);
      ctx.emit('doom_loop:warn', { ...data, action: 'warn', message: detection.message, note: this.note });
      return undefined;
    }
    ctx.emit('doom_loop:stop', { ...data, action: 'stop', message: detection.message });
    return { reason: 'doom_loop', message: detection.message };
  }

  private describe(span: CallSig[], len: number): DoomLoopDetection {
    const threshold = this.settings.threshold;
    const block = span.slice(0, len);
    const cycle = block.map(label);
    const noProgress = block.some((s) => s.byResult);
    const steps = [...new Set(span.map((s) => s.step))];
    const fromStep = span[0].step;
    const toStep = span[span.length - 1].step;
    const where = fromStep === toStep ? `in step ${fromStep}` : `in steps ${fromStep}-${toStep}`;
    const warned = this.warnings > 0 ? `, after a warning at step ${this.warnedStep}` : '';
    const what = len === 1 ? `same call ${cycle[0]}` : `cycle [${cycle.join(', ')}]`;
    const how = noProgress
      ? len === 1
        ? ` returned the same result ${threshold} times`
        : ` repeated ${threshold} times with the same results`
      : ` repeated ${threshold} times`;
    return {
      pattern: len === 1 ? 'repeat' : 'cycle',
      noProgress,
      cycle,
      repeats: threshold,
      fromStep,
      toStep,
      steps,
      message: `doom loop: ${noProgress ? 'no progress: ' : ''}${what}${how} ${where}${warned}`,
    };
  }
}

/** A readable label of a call: `name(key=value, ...)`, values as JSON, long values cut. */
function label(s: CallSig): string {
  if (s.args === '…') return `${s.name}(…)`;
  let args: unknown;
  try {
    args = JSON.parse(s.args);
  } catch {
    return `${s.name}(${cut(s.args, 60)})`;
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return `${s.name}(${cut(s.args, 60)})`;
  const inner = Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => `${k}=${cut(JSON.stringify(v) ?? 'null', 40)}`)
    .join(', ');
  return `${s.name}(${cut(inner, 120)})`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** What a call produced, as a short hash (an error counts as its message). */
function resultHash(result: ActionResult | undefined): string {
  if (!result) return 'none';
  const text =
    result.status === 'success'
      ? typeof result.output === 'string'
        ? result.output
        : canonicalJson(result.output)
      : `${result.status}:${result.error ?? ''}`;
  return createHash('sha1').update(text).digest('base64');
}
