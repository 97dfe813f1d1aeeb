import { createHash } from 'node:crypto';
import { pyJsonDumps, pyJsonParse } from './py/py-json.js';
import { PyException, pyDeepCopy, type PyDict, type PyValue } from './py/py-value.js';
import { TauData, type TauBaseDatabase } from './tau-database.js';
import type { TauToolImpl } from './tau-tool.js';
import type { TauAction, TauCallResult, TauReward, TauSession, TauTask } from './types.js';

/** What a session needs from its domain. */
export interface TauSessionContext {
  domain: 'airline' | 'retail';
  base: TauBaseDatabase;
  tools: ReadonlyMap<string, TauToolImpl>;
  terminateTools: readonly string[];
  /** The ground-truth hash of a task (cached by the domain). */
  gtHash(task: TauTask): string;
}

function className(tool: string): string {
  return tool
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** Python's binding of `Tool.invoke(data=self.data, **kwargs)`, with CPython's TypeError wording. */
function bindArgs(domain: string, tool: TauToolImpl, kwargs: PyDict): PyValue[] {
  const cls = className(tool.name);
  if (kwargs.has('data')) {
    throw new PyException(
      'TypeError',
      `tau_bench.envs.${domain}.tools.${tool.name}.${cls}.invoke() got multiple values for keyword argument 'data'`,
    );
  }
  for (const k of kwargs.keys()) {
    if (!tool.params.includes(k))
      throw new PyException('TypeError', `${cls}.invoke() got an unexpected keyword argument '${k}'`);
  }
  const missing = tool.params.filter((p) => !kwargs.has(p)).map((p) => `'${p}'`);
  if (missing.length) {
    const list =
      missing.length === 1
        ? missing[0]
        : missing.length === 2
          ? `${missing[0]} and ${missing[1]}`
          : `${missing.slice(0, -1).join(', ')}, and ${missing[missing.length - 1]}`;
    throw new PyException(
      'TypeError',
      `${cls}.invoke() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${list}`,
    );
  }
  return tool.params.map((p) => kwargs.get(p)!);
}

/** A trial's session: the original's `Env.step` for tool actions, its recorded actions, hash and reward. */
export class TauSessionImpl implements TauSession {
  private readonly data: TauData;
  private readonly recorded: TauAction[] = [];
  private crashed: string | undefined;

  constructor(private readonly ctx: TauSessionContext) {
    this.data = new TauData(ctx.base);
  }

  get actions(): readonly TauAction[] {
    return this.recorded;
  }

  call(name: string, args: string | PyDict): TauCallResult {
    let kwargs: PyValue;
    if (typeof args === 'string') {
      try {
        kwargs = pyJsonParse(args);
      } catch (e) {
        if (!PyException.isInstance(e)) throw e;
        // the original's agents crash on arguments that are not JSON; a session reports it to the model instead
        this.recorded.push({ name, kwargs: new Map(), kwargsJson: '{}' });
        return { observation: `Error: tool arguments are not valid JSON: ${e.message}`, error: true, terminate: false };
      }
    } else kwargs = pyDeepCopy(args); // the tools may store argument lists in the database (book_reservation does)
    if (!(kwargs instanceof Map)) {
      this.recorded.push({ name, kwargs: new Map(), kwargsJson: '{}' });
      return { observation: 'Error: tool arguments must be a JSON object', error: true, terminate: false };
    }
    this.recorded.push({ name, kwargs, kwargsJson: pyJsonDumps(kwargs) });
    const tool = this.ctx.tools.get(name);
    if (!tool) return { observation: `Unknown action ${name}`, error: true, terminate: false };
    const terminate = this.ctx.terminateTools.includes(name);
    let out: PyValue;
    try {
      out = tool.run(this.data, bindArgs(this.ctx.domain, tool, kwargs));
    } catch (e) {
      if (!PyException.isInstance(e)) throw e;
      return { observation: `Error: ${e.message}`, error: true, terminate };
    }
    if (typeof out !== 'string') {
      this.crashed =
        `1 validation error for EnvResponse\nobservation\n  Input should be a valid string ` +
        `[type=string_type, input_value=None, input_type=NoneType]`;
      return { observation: 'None', error: true, terminate: true, crash: this.crashed };
    }
    return { observation: out, error: out.startsWith('Error: '), terminate };
  }

  respond(content: string): void {
    this.recorded.push({
      name: 'respond',
      kwargs: new Map([['content', content]]),
      kwargsJson: pyJsonDumps(new Map([['content', content]])),
    });
  }

  dbHash(): string {
    return this.data.hash();
  }

  /** Records changed or added by this session (what copy-on-write copied). */
  changedRecords(): number {
    return this.data.changedRecords();
  }

  reward(task: TauTask): TauReward {
    const dbHash = this.dbHash();
    const gtDbHash = this.ctx.gtHash(task);
    const rActions = dbHash === gtDbHash;
    let reward = rActions ? 1.0 : 0.0;
    const result: TauReward = { reward, dbHash, gtDbHash, rActions };
    if (task.outputs.length > 0) {
      const outputs: Record<string, boolean> = {};
      let rOutputs = 1.0;
      for (const output of task.outputs) {
        const want = output.toLowerCase();
        const found = this.recorded.some((a) => {
          const content = a.name === 'respond' ? a.kwargs.get('content') : undefined;
          return typeof content === 'string' && content.toLowerCase().replaceAll(',', '').includes(want);
        });
        outputs[output] = found;
        if (!found) {
          rOutputs = 0.0;
          reward = 0.0;
        }
      }
      result.outputs = outputs;
      result.rOutputs = rOutputs;
    }
    result.reward = reward;
    if (this.crashed !== undefined) {
      result.reward = 0.0;
      result.crash = this.crashed;
    }
    return result;
  }
}

/** The hash after replaying a task's actions on a fresh database, minus terminate tools (the original's gt replay). */
export function groundTruthHash(ctx: TauSessionContext, task: TauTask): string {
  const s = new TauSessionImpl(ctx);
  for (const action of task.actions) if (!ctx.terminateTools.includes(action.name)) s.call(action.name, action.kwargs);
  return s.dbHash();
}

/** sha256 hex of a string (digests in tests and the perf bench). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
