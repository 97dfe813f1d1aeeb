import type {
  BreakCommand,
  BreakCondition,
  BreakContext,
  BreakPhase,
  Breakpoint,
  ModelMessage,
  State,
} from '../core/index.js';
import {
  BreakPhase as BreakPhaseSchema,
  SimpleDecision,
  describeBreakpoint,
  formatZodIssue,
  newActionId,
} from '../core/index.js';
import { evaluateCondition, parseExpr, type Expr } from '../kit/expr/index.js';
import { REPLAY_EDIT_ID } from '../trace/index.js';
import type { LineReader } from './line-reader.js';
import { terminalBlock, terminalText } from '../app/terminal-text.js';

/** The id of the stop before step 1 every session starts with. */
const START_ID = 'start';

const HELP = `commands (at a stop):
  break [phase] <phase>|step <n> [phase]|tool <name>|expr <expression>   set a breakpoint (b)
  delete [id]          delete a breakpoint, or all of them (d)
  list                 the breakpoints (l)
  continue             run to the next breakpoint (c)
  step                 stop at the next phase edge (s)
  next                 stop at the start of the next step (n)
  until <n> [phase] | until <phase>   run to step n (and phase), or to the next such phase (u)
  show state|observation|decision|messages|results   what the run holds now (p)
  edit                 (before act) type a decision as JSON, ended by an empty line; it is validated
  skip <call>          (before act) do not run tool call <call> (numbered from 1, as show decision lists them)
  stop                 end the run now (interrupted) (q)
  help                 this text (h)
phases: ${BreakPhaseSchema.options.join(', ')}
`;

/**
 * The interactive side of `qitos debug`: its `onBreak` prints where the run stopped and reads commands from a
 * terminal or a script until one lets the run go on (docs/debugging.md). Breakpoints typed at the prompt are
 * numbered; an `expr` breakpoint is parsed when it is set, so a typo is named then, not at the next stop.
 */
export class DebugSession {
  readonly breakpoints: Breakpoint[] = [{ on: 'phase', phase: 'observe', once: true, id: START_ID }];
  private counter = 0;
  private readonly parsed = new Map<string, Expr>();
  private ended = false;
  private lastStop = '';

  constructor(
    private readonly input: LineReader,
    private readonly out: (text: string) => void,
  ) {}

  /** Adds breakpoints given on the command line (`--break`); throws with the reason for a bad one. */
  add(spec: string): Breakpoint {
    const bp = this.parseBreak(spec);
    this.breakpoints.push(bp);
    return bp;
  }

  /** The Engine's `breakCondition`: the expression language over the stop's scope (parsed once per text). */
  readonly condition: BreakCondition = (expr, scope) => {
    let e = this.parsed.get(expr);
    if (!e) this.parsed.set(expr, (e = parseExpr(expr)));
    return evaluateCondition(e, scope);
  };

  /** The Engine's `onBreak`. */
  readonly onBreak = async (ctx: BreakContext<State>): Promise<BreakCommand> => {
    if (this.ended) return { command: 'continue' };
    // After an edit or a skip the engine asks again at the same stop: say where only once.
    const at = `${ctx.runId}:${ctx.step}:${ctx.phase}`;
    if (at !== this.lastStop) this.out(`\n${this.where(ctx)}\n`);
    this.lastStop = at;
    if (ctx.phase === 'act' && ctx.decision) this.out(this.decisionText(ctx));
    for (;;) {
      this.out('(qdb) ');
      const line = await this.input.next();
      // A scripted session's commands are not echoed by a terminal: show them, so its output reads as a session.
      if (line !== null && !this.input.terminal) this.out(`${line}\n`);
      if (line === null) {
        this.ended = true;
        this.out('\n(end of input: the run goes on without stopping)\n');
        return { command: 'continue' };
      }
      const command = this.run(line.trim(), ctx);
      if (command === 'edit') {
        const edited = await this.readDecision();
        if (edited) return edited;
      } else if (command) return command;
    }
  };

  /** One command line: a command for the engine, `edit` (read a decision next), or undefined (stay at the prompt). */
  private run(line: string, ctx: BreakContext<State>): BreakCommand | 'edit' | undefined {
    const [word = '', ...rest] = line.split(/\s+/);
    const arg = line.slice(word.length).trim();
    try {
      switch (word) {
        case '':
          return undefined;
        case 'c':
        case 'continue':
          return { command: 'continue' };
        case 's':
        case 'step':
          return { command: 'step' };
        case 'n':
        case 'next':
          return { command: 'next' };
        case 'u':
        case 'until':
          return this.until(rest);
        case 'q':
        case 'stop':
        case 'quit':
          return { command: 'stop' };
        case 'b':
        case 'break': {
          const bp = this.parseBreak(arg);
          ctx.breakpoints.push(bp);
          this.out(`breakpoint ${bp.id}: ${describeBreakpoint(bp)}\n`);
          return undefined;
        }
        case 'd':
        case 'delete':
          this.delete(arg, ctx);
          return undefined;
        case 'l':
        case 'list':
          this.list(ctx);
          return undefined;
        case 'p':
        case 'show':
          this.show(arg, ctx);
          return undefined;
        case 'edit':
          if (ctx.phase !== 'act') throw new Error('edit: a decision is edited at a stop before act');
          this.out('decision as JSON (an empty line ends it), e.g. {"mode":"final","answer":"42"}\n');
          return 'edit';
        case 'skip':
          return this.skip(arg, ctx);
        case 'h':
        case 'help':
        case '?':
          this.out(HELP);
          return undefined;
        default:
          throw new Error(`unknown command "${word}" (help lists them)`);
      }
    } catch (err) {
      this.out(`error: ${(err as Error).message}\n`);
      return undefined;
    }
  }

  /** `break <spec>`: a phase, `step <n> [phase]`, `tool <name>` or `expr <expression>`; numbered when valid. */
  private parseBreak(spec: string): Breakpoint {
    const bp = this.breakpointOf(spec.trim());
    return { ...bp, id: String(++this.counter) };
  }

  private breakpointOf(spec: string): Breakpoint {
    const [kind = '', ...rest] = spec.split(/\s+/);
    if (BreakPhaseSchema.safeParse(kind).success && !rest.length) return { on: 'phase', phase: kind as BreakPhase };
    if (kind === 'phase' && rest.length === 1) return { on: 'phase', phase: this.phase(rest[0], 'break phase') };
    if (kind === 'step') {
      const step = Number(rest[0]);
      if (!Number.isInteger(step) || step < 1) throw new Error(`break step: "${rest[0] ?? ''}" is not a step number`);
      return rest[1] === undefined
        ? { on: 'step', step }
        : { on: 'step', step, phase: this.phase(rest[1], 'break step') };
    }
    if (kind === 'tool' && rest.length === 1) return { on: 'tool', tool: rest[0] };
    if (kind === 'expr' && rest.length) {
      const expr = spec.slice(4).trim();
      try {
        this.parsed.set(expr, parseExpr(expr));
      } catch (err) {
        throw new Error(`break expr: ${(err as Error).message}`);
      }
      return { on: 'expr', expr };
    }
    throw new Error(
      `break: "${spec}" is not a breakpoint: give a phase ` +
        `(${BreakPhaseSchema.options.join(', ')}), step <n> [phase], tool <name> or expr ` +
        `<expression>`,
    );
  }

  private phase(word: string, what: string): BreakPhase {
    const p = BreakPhaseSchema.safeParse(word);
    if (!p.success) throw new Error(`${what}: "${word}" is not a phase (${BreakPhaseSchema.options.join(', ')})`);
    return p.data;
  }

  private until(rest: string[]): BreakCommand {
    if (!rest.length) throw new Error('until: give a step number, a phase, or both');
    const n = Number(rest[0]);
    if (Number.isInteger(n) && n > 0)
      return rest[1] === undefined
        ? { command: 'until', step: n }
        : { command: 'until', step: n, phase: this.phase(rest[1], 'until') };
    return { command: 'until', phase: this.phase(rest[0], 'until') };
  }

  private delete(arg: string, ctx: BreakContext<State>): void {
    const mine = (b: Breakpoint) => !b.id?.startsWith(REPLAY_EDIT_ID);
    if (!arg) {
      const kept = ctx.breakpoints.filter((b) => !mine(b));
      ctx.breakpoints.splice(0, ctx.breakpoints.length, ...kept);
      this.out('deleted every breakpoint\n');
      return;
    }
    const i = ctx.breakpoints.findIndex((b) => b.id === arg && mine(b));
    if (i < 0) throw new Error(`delete: no breakpoint ${arg} (list shows them)`);
    ctx.breakpoints.splice(i, 1);
    this.out(`deleted breakpoint ${arg}\n`);
  }

  private list(ctx: BreakContext<State>): void {
    const shown = ctx.breakpoints.filter((b) => !b.id?.startsWith(REPLAY_EDIT_ID) && b.id !== START_ID);
    if (!shown.length) this.out('no breakpoints\n');
    for (const b of shown) this.out(`${b.id}  ${describeBreakpoint(b)}${b.once ? ' (once)' : ''}\n`);
  }

  private skip(arg: string, ctx: BreakContext<State>): BreakCommand {
    if (ctx.phase !== 'act' || ctx.decision?.mode !== 'act')
      throw new Error('skip: tool calls are skipped at a stop before act, in a step that calls tools');
    const n = Number(arg);
    const count = ctx.decision.actions.length;
    if (!Number.isInteger(n) || n < 1 || n > count)
      throw new Error(`skip: give a call number from 1 to ${count} (show decision lists them)`);
    this.out(`call ${n} (${ctx.decision.actions[n - 1].name}) will not run\n`);
    return { command: 'skip', call: n - 1 };
  }

  private show(what: string, ctx: BreakContext<State>): void {
    switch (what) {
      case 'state': {
        const { messages, ...rest } = ctx.state;
        this.out(json({ ...rest, messages: `(${messages.length} messages: show messages)` }));
        return;
      }
      case 'observation':
        this.out(json(ctx.observation));
        return;
      case 'decision':
        this.out(ctx.decision ? this.decisionText(ctx) : '(no decision yet: DECIDE has not run in this step)\n');
        return;
      case 'messages':
        this.out(messagesText(ctx.messages));
        return;
      case 'results':
        this.out(ctx.results.length ? json(ctx.results.map(({ state: _state, ...r }) => r)) : '(no results yet)\n');
        return;
      default:
        throw new Error('show: state, observation, decision, messages or results');
    }
  }

  /** Reads a decision as JSON up to an empty line; validates it (with ids for calls that have none). */
  private async readDecision(): Promise<BreakCommand | undefined> {
    const lines: string[] = [];
    for (;;) {
      const line = await this.input.next();
      if (line !== null && !this.input.terminal) this.out(`${line}\n`);
      if (line === null || !line.trim()) break;
      lines.push(line);
    }
    let value: unknown;
    try {
      value = JSON.parse(lines.join('\n'));
    } catch (err) {
      this.out(`error: edit: not JSON: ${(err as Error).message}\n`);
      return undefined;
    }
    const v = value as { mode?: unknown; actions?: unknown };
    if (v && v.mode === 'act' && Array.isArray(v.actions))
      v.actions = v.actions.map((a: unknown) =>
        a && typeof a === 'object' && !('id' in a) ? { id: newActionId(), args: {}, ...a } : a,
      );
    const d = SimpleDecision.safeParse(value);
    if (!d.success) {
      this.out(`error: edit: not a decision: ${formatZodIssue(d.error.issues[0], '(decision)')}\n`);
      return undefined;
    }
    this.out('decision edited\n');
    return { command: 'edit', decision: d.data };
  }

  private where(ctx: BreakContext<State>): string {
    return terminalText(`stopped at step ${ctx.step}, before ${ctx.phase}: ${ctx.reason}`, { oneLine: true });
  }

  private decisionText(ctx: BreakContext<State>): string {
    const d = ctx.decision;
    if (!d) return '';
    const head = ctx.original ? 'decision (edited):' : 'decision:';
    const lines = [head];
    if (d.mode === 'act')
      d.actions.forEach((a, i) => {
        const skipped = ctx.skipped.includes(i) ? '  (skipped)' : '';
        lines.push(`  ${i + 1}. ${a.name} ${JSON.stringify(a.args)}${skipped}`);
      });
    else if (d.mode === 'final') lines.push(`  final: ${JSON.stringify(d.answer)}`);
    else lines.push(`  ${d.mode}`);
    return terminalBlock(lines.join('\n')) + '\n';
  }
}

function json(v: unknown): string {
  return terminalBlock(JSON.stringify(v, null, 2) ?? 'undefined') + '\n';
}

/** Model messages, one block each: role, then its text, tool calls and tool results. */
function messagesText(messages: readonly ModelMessage[]): string {
  const out: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'system') {
      out.push(`[${i}] system: ${m.content}`);
      return;
    }
    const parts = m.content.map((p) => {
      if (p.type === 'text' || p.type === 'reasoning') return p.text;
      if (p.type === 'tool-call') return `call ${p.name} ${JSON.stringify(p.args)} (${p.callId})`;
      if (p.type === 'tool-result') return `result of ${p.name} (${p.callId})${p.isError ? ' error' : ''}: ${p.output}`;
      return `(${p.type})`;
    });
    out.push(`[${i}] ${m.role}: ${parts.join('\n    ')}`);
  });
  return terminalBlock(out.join('\n')) + '\n';
}
