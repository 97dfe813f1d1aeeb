import { z } from 'zod';
import type { AnyTool, State, ToolContext } from '../../core/index.js';
import { defineTool } from '../../core/index.js';
import { fromPlain, type PyDict } from './py/py-value.js';
import type { TauEnv } from './tau-env.js';
import type { TauDomain } from './types.js';

/** Where a tau tool finds the exact arguments of its call: raw JSON text or a Python dict; undefined falls back to the parsed args. */
export type TauRawArgs = (ctx: ToolContext) => string | PyDict | undefined;

/**
 * The raw argument JSON of a native tool call, as the model sent it: the call's tool part in the run's history
 * is still pending (with `raw`) while the tool runs. Undefined for a call that did not come from the model.
 */
export function nativeRawArgs(ctx: ToolContext): string | undefined {
  const messages = (ctx.state as State | undefined)?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    for (const p of m.parts)
      if (p.type === 'tool' && p.callID === ctx.callId && p.state.status === 'pending') return p.state.raw;
    return undefined;
  }
  return undefined;
}

/** The tau env of a run (op group `tau`); a clear error when the run has another env. */
export function tauEnvOf(ctx: Pick<ToolContext, 'env'>): TauEnv {
  const env = ctx.env.ops('tau') as TauEnv | undefined;
  if (!env) throw new Error(`tau-bench tools need a tau env (op group "tau"); this run's env is "${ctx.env.name}"`);
  return env;
}

/**
 * A domain's tools as qitos tools: the model is shown each tool's `get_info()` schema byte for byte (`inputSchema`),
 * and a call goes to the session with the model's raw argument JSON when there is one (so `100.0` stays a float),
 * else with the parsed arguments. The output is the original's observation string exactly (`Error: ...` for a tool
 * exception, as the original's env reports it: a successful call in qitos's terms, so the model sees the text unchanged).
 */
export function tauTools(domain: TauDomain, options: { rawArgs?: TauRawArgs } = {}): AnyTool[] {
  const raw = options.rawArgs ?? nativeRawArgs;
  return domain.tools.map((info) => {
    const name = info.function.name;
    return defineTool({
      id: name,
      description: info.function.description,
      parameters: z.record(z.string(), z.unknown()),
      inputSchema: info.function.parameters,
      requires: ['tau'],
      execute(args, ctx) {
        const exact = raw(ctx) ?? (fromPlain(args) as PyDict);
        const result = tauEnvOf(ctx).call(name, exact);
        return { output: result.observation, metadata: { tauError: result.error, terminate: result.terminate } };
      },
    });
  });
}
