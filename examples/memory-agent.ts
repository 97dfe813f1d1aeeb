/**
 * An agent that gets better across the tasks of a suite through its memory.
 *
 *   npx tsx examples/memory-agent.ts            runs the sample suite twice against a fresh notes file
 *
 * The agent converts amounts to USD. It does not know any exchange rate: the first time it meets a currency it
 * calls the `lookup_rate` tool (think: an expensive search) and writes what it learned to its memory, a markdown
 * notes file (`markdownMemory`). On every later task it asks its memory first, and answers in one step without
 * the tool when a note has the rate. On the sample suite (8 tasks, 4 currencies) the first pass makes 4 lookups
 * in 12 steps, the second pass none in 8. Every memory read and write is in the trace, so `qitos replay` of any
 * of these runs sees the same notes, whatever the file holds by then.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  baseState,
  decide,
  defineTool,
  type ActionResult,
  type Decision,
  type State,
  type Task,
} from '../src/core/index.js';
import { AgentModule, type AgentContext } from '../src/engine/agent-module.js';
import { Engine } from '../src/engine/engine.js';
import { markdownMemory } from '../src/kit/memory/index.js';
import { runAsScript } from './run-as-script.js';

/** USD per unit of each currency the tool knows. */
const RATES: Record<string, number> = { EUR: 1.08, GBP: 1.27, CHF: 1.13, JPY: 0.0067 };

/** The expensive lookup the agent learns to avoid. */
export const lookupRateTool = defineTool({
  id: 'lookup_rate',
  description: 'Looks up how many US dollars one unit of a currency buys.',
  parameters: z.object({ currency: z.string().regex(/^[A-Z]{3}$/, 'expected a three-letter currency code') }),
  execute({ currency }) {
    const rate = RATES[currency];
    if (rate === undefined) throw new Error(`no rate for ${currency}`);
    return `1 ${currency} = ${rate} USD`;
  },
});

const TASK = /^Convert ([\d.]+) ([A-Z]{3}) to USD$/;
const NOTE = /^1 ([A-Z]{3}) = ([\d.]+) USD$/;

interface CurrencyState extends State {
  amount: number;
  currency: string;
  rate: number | null;
  /** Tool lookups made in this run. */
  lookups: number;
}

/** Converts "Convert <amount> <CUR> to USD" with a rate from its memory, or from the tool (then remembered). */
export class CurrencyAgent extends AgentModule<CurrencyState> {
  constructor() {
    super({ tools: [lookupRateTool] });
  }

  initState(task: Task): CurrencyState {
    const m = TASK.exec(task.objective);
    if (!m)
      throw new Error(`CurrencyAgent: expected "Convert <amount> <CUR> to USD", got ${JSON.stringify(task.objective)}`);
    return { ...baseState(task, 4), amount: Number(m[1]), currency: m[2], rate: null, lookups: 0 };
  }

  override async decide(state: CurrencyState, _o: unknown, ctx: AgentContext): Promise<Decision> {
    if (state.rate === null) {
      const [note] = await ctx.memory!.retrieve(`1 ${state.currency} USD rate`, 1);
      const m = note && NOTE.exec(note.content);
      if (m && m[1] === state.currency) state = { ...state, rate: Number(m[2]) };
    }
    if (state.rate === null) return decide.call('lookup_rate', { currency: state.currency });
    return decide.final((Math.round(state.amount * state.rate * 100) / 100).toFixed(2));
  }

  override async reduce(
    state: CurrencyState,
    _o: unknown,
    _d: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): Promise<CurrencyState> {
    if (results.length) state = { ...state, lookups: state.lookups + results.length };
    const learned = results.find((r) => r.status === 'success' && NOTE.test(String(r.output)));
    if (!learned) return state;
    const note = String(learned.output);
    await ctx.memory!.append({ role: 'lesson', content: note });
    return { ...state, rate: Number(NOTE.exec(note)![2]) };
  }
}
export default CurrencyAgent;

/** The sample suite: each currency twice. */
export const SAMPLE_SUITE = [
  'Convert 100 EUR to USD',
  'Convert 20 GBP to USD',
  'Convert 50 EUR to USD',
  'Convert 1000 JPY to USD',
  'Convert 75 CHF to USD',
  'Convert 10 GBP to USD',
  'Convert 4000 JPY to USD',
  'Convert 5 CHF to USD',
];

/** Runs the tasks one after another with one notes file; per task: answer, steps and tool calls. */
export async function runSuite(
  notesPath: string,
  tasks: readonly string[] = SAMPLE_SUITE,
): Promise<Array<{ task: string; answer: string | null; steps: number; lookups: number }>> {
  const engine = new Engine({
    agent: new CurrencyAgent(),
    memory: () => markdownMemory({ path: notesPath }),
    trace: false,
  });
  const out = [];
  for (const task of tasks) {
    const r = await engine.run(task);
    out.push({ task, answer: r.finalResult, steps: r.steps, lookups: r.state.lookups });
  }
  return out;
}

runAsScript(import.meta.url, async () => {
  const notes = join(await mkdtemp(join(tmpdir(), 'qitos-memory-')), 'memory.md');
  for (const pass of [1, 2]) {
    const rows = await runSuite(notes);
    console.log(
      `pass ${pass}: ${rows.reduce((s, r) => s + r.lookups, 0)} lookups, ${rows.reduce((s, r) => s + r.steps, 0)} steps`,
    );
    for (const r of rows)
      console.log(`  ${r.task.padEnd(26)} -> ${r.answer}  (${r.steps} step${r.steps === 1 ? '' : 's'})`);
  }
  console.log(`notes: ${notes}`);
});
