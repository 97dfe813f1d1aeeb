import type { Decision, ModelMessage, ModelToolResultPart, Parser, ResponsePart } from '../../../core/index.js';
import { ParseError, newActionId, responseText } from '../../../core/index.js';
import { pyJsonDumps, pyJsonParse } from '../py/py-json.js';
import { fromPlain, toPlain, type PyDict, type PyValue } from '../py/py-value.js';
import { tauTools } from '../tau-tools.js';
import { ACT_INSTRUCTION, REACT_INSTRUCTION } from './react-prompts.js';
import { TauAgent, type TauAgentOptions } from './tau-agent.js';

/**
 * The parser of the original's `ChatReActAgent.generate_next_step`: the action is the JSON after the LAST `Action:`
 * (read as Python's `json.loads`); text that is not JSON is a message to the user (the original's "hack"); JSON
 * naming `respond` is a message to the user with its `content`; any other name is a tool call with its arguments.
 * The arguments are kept as Python values in `rawArgs` (by action id) so the session gets them exactly.
 */
export function tauReactParser(rawArgs: Map<string, PyDict>): Parser {
  return {
    name: 'tau-react',
    parse(response) {
      const actionText = responseText(response).split('Action:').at(-1)!.trim();
      let parsed: PyValue;
      try {
        parsed = pyJsonParse(actionText);
      } catch {
        return { mode: 'wait', rationale: actionText };
      }
      if (!(parsed instanceof Map) || !parsed.has('name') || !parsed.has('arguments')) {
        return new ParseError(
          'The Action must be a JSON object with "name" and "arguments": {"name": <the action>, ' +
            '"arguments": <its arguments as a JSON object>}',
          actionText,
        );
      }
      const name = parsed.get('name');
      const args = parsed.get('arguments');
      if (typeof name !== 'string')
        return new ParseError(
          `The Action's "name" must be a string, got ${JSON.stringify(toPlain(name ?? null))}`,
          actionText,
        );
      if (!(args instanceof Map))
        return new ParseError(
          `The Action's "arguments" must be a JSON object, got ${JSON.stringify(toPlain(args ?? null))}`,
          actionText,
        );
      if (name === 'respond') {
        const content = args.get('content');
        if (typeof content !== 'string')
          return new ParseError(
            'A respond Action needs "arguments": {"content": <the message to the user>}',
            actionText,
          );
        return { mode: 'wait', rationale: content };
      }
      const id = newActionId();
      rawArgs.set(id, args);
      return { mode: 'act', actions: [{ id, name, args: toPlain(args) as Record<string, unknown> }] };
    },
    format(decision: Decision): ResponsePart[] {
      const action = (name: string, args: Record<string, unknown>) =>
        `Action:\n${JSON.stringify({ name, arguments: args })}`;
      if (decision.mode === 'act')
        return [{ type: 'text', text: action(decision.actions[0].name, decision.actions[0].args) }];
      if (decision.mode === 'wait')
        return [{ type: 'text', text: action('respond', { content: decision.rationale ?? '' }) }];
      throw new Error(
        `the tau ReAct parser has no ${decision.mode} decisions: a message to the user is a respond Action`,
      );
    },
    instructions: () => REACT_INSTRUCTION,
    /** The original's `"API output: " + observation`, as a user message. */
    formatResults(results: readonly ModelToolResultPart[]): ModelMessage[] {
      return results.map((r) => ({ role: 'user', content: [{ type: 'text', text: `API output: ${r.output}` }] }));
    },
  };
}

/** Options of the ReAct agent: `useReasoning: false` is the original's `act` strategy (no Thought). */
export interface TauReactAgentOptions extends TauAgentOptions {
  useReasoning?: boolean;
}

/**
 * The original's `ChatReActAgent` (tau-bench `tau_bench/agents/chat_react_agent.py`, MIT, Copyright (c) 2024 Sierra):
 * the system prompt is the wiki, `\n#Available tools\n`, `json.dumps` of the tools' `get_info()` dicts and the
 * ReAct (or Act) instruction; no native tools; temperature 0. Messages: system, user (the customer), then per step
 * the assistant's text and a user message: `API output: <observation>` after a tool, the customer's answer after
 * a respond.
 */
export class TauReactAgent extends TauAgent {
  private readonly prompt: string;

  constructor(options: TauReactAgentOptions) {
    const rawArgs = new Map<string, PyDict>();
    const reasoning = options.useReasoning ?? true;
    super({
      parser: tauReactParser(rawArgs),
      tools: tauTools(options.env.domain, { rawArgs: (ctx) => rawArgs.get(ctx.callId) }),
      ...options,
      config: { agent: reasoning ? 'react' : 'act', ...options.config },
    });
    const domain = options.env.domain;
    this.prompt =
      `${domain.wiki}\n#Available ` +
      `tools\n${pyJsonDumps(fromPlain(domain.tools))}${reasoning ? REACT_INSTRUCTION : ACT_INSTRUCTION}`;
  }

  override buildSystemPrompt(): string {
    return this.prompt;
  }
}
