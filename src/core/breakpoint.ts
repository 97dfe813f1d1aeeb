import { z } from 'zod';
import type { ActionResult } from './action.js';
import { Decision } from './decision.js';
import type { ModelMessage } from './model-message.js';
import type { State } from './state.js';

/**
 * The phase edges a run can stop at: before each of these phases runs. `act` is the edge right after DECIDE in
 * every step (also when the decision is not `act` and ACT then runs nothing): the one place a decision can be
 * edited and tool calls skipped.
 */
export const BreakPhase = z.enum(['observe', 'decide', 'act', 'reduce', 'critique', 'check_stop']);
export type BreakPhase = z.infer<typeof BreakPhase>;

/** An optional name of a breakpoint (the CLI numbers them); a stop says which breakpoints it hit by it. */
const id = z.string().min(1).optional();
/** Delete the breakpoint after its first hit (gdb's `tbreak`). */
const once = z.boolean().optional();

/**
 * Where a run stops for its `onBreak` (the Engine's `breakpoints` option, docs/debugging.md):
 * - `phase`: before every such phase;
 * - `step`: at step `step`, before `phase` (default `observe`, the start of the step);
 * - `tool`: at the `act` edge of a step whose decision calls the tool;
 * - `expr`: when an expression over `state`, `step`, `phase`, `observation` and `decision` is true, checked
 *   before `phase` (default `observe`: once per step). The Engine's `breakCondition` evaluates it.
 */
export const Breakpoint = z.discriminatedUnion('on', [
  z.object({ on: z.literal('phase'), phase: BreakPhase, id, once }),
  z.object({ on: z.literal('step'), step: z.number().int().positive(), phase: BreakPhase.optional(), id, once }),
  z.object({ on: z.literal('tool'), tool: z.string().min(1), id, once }),
  z.object({ on: z.literal('expr'), expr: z.string().min(1), phase: BreakPhase.optional(), id, once }),
]);
export type Breakpoint = z.infer<typeof Breakpoint>;

/**
 * What `onBreak` answers at a stop:
 * - `continue`: run on to the next breakpoint;
 * - `step`: stop again at the next phase edge;
 * - `next`: stop again at the start of the next step;
 * - `until`: run until step `step` (before `phase`, default `observe`), or until the next `phase` edge;
 * - `edit` (at the `act` edge): act on `decision` instead (recorded as edited in the trace); the run stays stopped;
 * - `skip` (at the `act` edge): do not run call `call` (its index from 0, or its action id); the model sees a
 *   skipped result; the run stays stopped;
 * - `stop`: end the run now (`interrupted`).
 */
export const BreakCommand = z.discriminatedUnion('command', [
  z.object({ command: z.literal('continue') }),
  z.object({ command: z.literal('step') }),
  z.object({ command: z.literal('next') }),
  z
    .object({ command: z.literal('until'), step: z.number().int().positive().optional(), phase: BreakPhase.optional() })
    .refine((c) => c.step !== undefined || c.phase !== undefined, { message: '`until` needs a step, a phase or both' }),
  z.object({ command: z.literal('edit'), decision: Decision }),
  z.object({ command: z.literal('skip'), call: z.union([z.number().int().nonnegative(), z.string().min(1)]) }),
  z.object({ command: z.literal('stop') }),
]);
export type BreakCommand = z.infer<typeof BreakCommand>;

/** What `onBreak` sees at a stop. Read-only but for `breakpoints`, which it may change for the rest of the run. */
export interface BreakContext<S extends State = State> {
  readonly runId: string;
  readonly step: number;
  /** The phase about to run. */
  readonly phase: BreakPhase;
  /** The breakpoints that stopped the run here (empty when only a `step`, `next` or `until` did). */
  readonly hits: readonly Breakpoint[];
  /** True when a `step`, `next` or `until` stops the run here (breakpoints may match too). */
  readonly stepping: boolean;
  /** Why the run stopped here, in words (`breakpoint 2 (tool bash)`, `step`, an expression that failed). */
  readonly reason: string;
  readonly state: S;
  /** This step's observation (null before OBSERVE). */
  readonly observation: unknown;
  /** This step's decision from the `act` edge on (the edited one after an `edit`); null before. */
  readonly decision: Decision | null;
  /** The decision DECIDE produced, when an `edit` replaced it. */
  readonly original: Decision | undefined;
  /** Indexes of the calls skipped so far at this stop. */
  readonly skipped: readonly number[];
  /** This step's tool results (empty before ACT). */
  readonly results: readonly ActionResult[];
  /**
   * The model messages: before DECIDE, the system prompt and history the next model call starts from (the user
   * message `prepare` adds is not in it yet); from the `act` edge on, what this step's model call sent.
   */
  readonly messages: readonly ModelMessage[];
  /** The run's breakpoints: add or remove entries to change where the rest of the run stops. */
  readonly breakpoints: Breakpoint[];
}

/** Called at every stop; answers with a command (see {@link BreakCommand}). */
export type OnBreak<S extends State = State> = (ctx: BreakContext<S>) => BreakCommand | Promise<BreakCommand>;

/** Evaluates an `expr` breakpoint's expression (the CLI passes the expression language's, `qitos-ts/expr`). */
export type BreakCondition = (expr: string, scope: Readonly<Record<string, unknown>>) => boolean;

/**
 * A breakpoint in words, as the CLI's `break` takes it: `phase act`, `step 3 decide`, `tool bash`, `expr state.x > 2`
 * (an `expr` checked at another phase than `observe` reads `expr … (at <phase>)`, which `break` does not take).
 */
export function describeBreakpoint(bp: Breakpoint): string {
  switch (bp.on) {
    case 'phase':
      return `phase ${bp.phase}`;
    case 'step':
      return `step ${bp.step}${bp.phase ? ` ${bp.phase}` : ''}`;
    case 'tool':
      return `tool ${bp.tool}`;
    case 'expr':
      return `expr ${bp.expr}${bp.phase ? ` (at ${bp.phase})` : ''}`;
  }
}
