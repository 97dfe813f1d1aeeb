import type { Action, Decision, Parser, ResponsePart, ToolSpec } from '../../core/index.js';
import { newActionId, responseText } from '../../core/index.js';
import { LiteralError, readCallArgs, readLiteral, skipSpace } from './literal-reader.js';
import { formatHint, hintedError, isObject, observationResults, toolList } from './text-parser-pieces.js';

/** Options of the ReAct text parser. */
export interface ReactParserOptions {
  /** Accept several `Action:` lines in one reply (default false: one action, then wait for its Observation). */
  multipleActions?: boolean;
}

/**
 * Labels are recognised only at the start of a line, and only these words: a line such as `else:` or `Note:`
 * is text. Markdown bold (`**Action:**`) is tolerated because models write it.
 */
const LABEL =
  /^[ \t]*(?:\*\*)?(thought|action input|action|final answer|observation|wait)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*/gim;
const TOOL_NAME = /[A-Za-z0-9_-]+/y;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Label = 'thought' | 'action input' | 'action' | 'final answer' | 'observation' | 'wait';
interface Found {
  label: Label;
  start: number;
  end: number;
}

function reactHint(multiple: boolean): string {
  return formatHint({
    intro: 'Reply in this format:',
    act: 'Thought: <your reasoning>\nAction: <tool_name>(<arg>=<value>, ...)',
    several: multiple ? 'several Action lines are allowed' : undefined,
    final: 'Thought: <your reasoning>\nFinal Answer: <the answer>',
  });
}

/**
 * Parses ReAct text: `Thought: … / Action: tool(k=v, …)` (or `Action: tool` + `Action Input: {json}`),
 * `Final Answer: …`, and `Wait:` (nothing to do this step). Argument values may be JSON or Python literals,
 * span several lines and nest brackets; the argument list is read as one value, so a line inside it that looks
 * like a label (`else:`, even `Final Answer:`) does not cut it. Text after an `Observation:` that follows an
 * action is ignored: the model invented the observation. Tool results come back as `Observation from <tool>: …`.
 */
export function reactParser(options: ReactParserOptions = {}): Parser {
  const multiple = options.multipleActions ?? false;
  const hint = reactHint(multiple);
  const fail = hintedError(hint);

  return {
    name: 'react',
    formatResults: observationResults,
    parse(response) {
      const text = responseText(response);
      if (!text.trim()) return fail('Your reply was empty.', text);
      const thoughts: string[] = [];
      const actions: Action[] = [];
      let final: string | undefined;
      let wait = false;
      let sawThought = false;
      let pos = 0;
      let found = nextLabel(text, 0);
      const preamble = text.slice(0, found ? found.start : text.length).trim();
      while (found) {
        const { label } = found;
        if (label === 'final answer') {
          final = text.slice(found.end).trim();
          break;
        }
        if (label === 'observation' && actions.length) break;
        if (label === 'action') {
          const a = readAction(text, found.end);
          if (typeof a === 'string') return fail(a, text);
          pos = a.end;
          let args = a.args;
          if (!args) {
            const next = nextLabel(text, pos);
            if (next?.label === 'action input') {
              const input = readActionInput(text, next.end, a.name);
              if (typeof input === 'string') return fail(input, text);
              args = input.args;
              pos = input.end;
            } else args = {};
          }
          actions.push({ id: newActionId(), name: a.name, args });
          found = nextLabel(text, pos);
          continue;
        }
        if (label === 'action input') return fail('"Action Input:" must follow an "Action: <tool_name>" line.', text);
        const next = nextLabel(text, found.end);
        const body = text.slice(found.end, next ? next.start : text.length).trim();
        if (label === 'thought') {
          sawThought = true;
          if (body) thoughts.push(body);
        } else if (label === 'wait') {
          wait = true;
          if (body) thoughts.push(body);
        }
        found = next;
      }
      if (!sawThought && preamble) thoughts.push(preamble);
      const withThought = thoughts.length ? { rationale: thoughts.join('\n') } : {};
      if (final !== undefined && actions.length)
        return fail(
          "Your reply has both an Action and a Final Answer: send one of them. An action's result " +
            'comes back as an Observation in the next turn.',
          text,
        );
      if (actions.length > 1 && !multiple)
        return fail(
          `Your reply has ${actions.length} actions; send exactly one Action per reply and wait for its Observation.`,
          text,
        );
      if (actions.length) return { mode: 'act', actions, ...withThought };
      if (final !== undefined) return { mode: 'final', answer: final, ...withThought };
      if (wait) return { mode: 'wait', ...withThought };
      return fail('Your reply has no "Action:" and no "Final Answer:" line.', text);
    },

    format(decision: Decision): ResponsePart[] {
      const lines: string[] = [];
      if (decision.rationale) lines.push(`Thought: ${decision.rationale}`);
      if (decision.mode === 'act') for (const a of decision.actions) lines.push(formatAction(a));
      else if (decision.mode === 'final') lines.push(`Final Answer: ${decision.answer}`);
      else if (decision.mode === 'wait') lines.push('Wait:');
      else throw new Error('the ReAct format has no branch decisions');
      return [{ type: 'text', text: lines.join('\n') }];
    },

    instructions(tools: readonly ToolSpec[]): string {
      return [
        'You solve the task step by step. In each reply, first think, then either call a tool or give the final answer.',
        hint,
        'Write argument values as JSON: strings in double quotes, numbers, true/false/null, ' +
          '[lists], {objects}. A long or multi-line string may use triple quotes """...""".',
        multiple
          ? 'You may write several Action lines when the calls do not depend on each other.'
          : 'Write one Action per reply.',
        'After an Action, stop: the tool result comes back to you as an Observation.',
        `Available tools:\n${toolList(tools, 'arguments (JSON Schema)')}`,
      ].join('\n');
    },
  };
}

function nextLabel(text: string, from: number): Found | undefined {
  LABEL.lastIndex = from;
  // only a line that starts after "\n" counts (`^` with the m flag also matches after a lone "\r" or U+2028)
  for (;;) {
    const m = LABEL.exec(text);
    if (!m) return undefined;
    if (m.index > 0 && text[m.index - 1] !== '\n') {
      LABEL.lastIndex = m.index + 1;
      continue;
    }
    return { label: m[1].toLowerCase() as Label, start: m.index, end: m.index + m[0].length };
  }
}

function restOfLine(text: string, i: number): string {
  const nl = text.indexOf('\n', i);
  return text.slice(i, nl < 0 ? text.length : nl);
}

/** Reads `tool(k=v, …)`, `tool {json}` or a bare `tool` (arguments in `Action Input:` or none). */
function readAction(
  text: string,
  start: number,
): { name: string; args?: Record<string, unknown>; end: number } | string {
  let i = skipSpace(text, start);
  const tick = text[i] === '`';
  if (tick) i++;
  TOOL_NAME.lastIndex = i;
  const m = TOOL_NAME.exec(text);
  if (!m)
    return `Could not read a tool name after "Action:" (found ${JSON.stringify(restOfLine(text, i).slice(0, 40))}).`;
  const name = m[0];
  let j = i + name.length;
  while (text[j] === ' ' || text[j] === '\t') j++;
  let args: Record<string, unknown> | undefined;
  if (text[j] === '(') {
    const r = readCallArgs(text, j);
    if (r instanceof LiteralError)
      return `Could not read the arguments of ${name}: ${r.message} (at ${where(text, r.offset)}).`;
    args = r.args;
    j = r.end;
  } else if (text[j] === '{') {
    const r = readLiteral(text, j);
    if (r instanceof LiteralError)
      return `Could not read the arguments of ${name}: ${r.message} (at ${where(text, r.offset)}).`;
    if (!isObject(r.value)) return `The arguments of ${name} must be an object.`;
    args = r.value;
    j = r.end;
  }
  if (tick && text[j] === '`') j++;
  // text after a complete call is ignored (models append comments); a bare name must end its line
  const rest = restOfLine(text, j).trim();
  if (!args && rest && !/^`+$/.test(rest)) {
    return (
      `Could not read the action ${JSON.stringify(restOfLine(text, i).trim().slice(0, 60))}: ` +
      `write Action: ${name}(<arg>=<value>, ...) with the arguments in parentheses.`
    );
  }
  return { name, ...(args ? { args } : {}), end: j };
}

function readActionInput(
  text: string,
  start: number,
  tool: string,
): { args: Record<string, unknown>; end: number } | string {
  let i = skipSpace(text, start);
  const fenced = text.startsWith('```', i);
  if (fenced) {
    const nl = text.indexOf('\n', i);
    i = nl < 0 ? text.length : nl + 1;
  }
  const r = readLiteral(text, i);
  if (r instanceof LiteralError)
    return (
      `Could not read the Action Input of ${tool}: ${r.message} (at ${where(text, r.offset)}). ` +
      `Write it as a JSON object, e.g. {"arg": "value"}.`
    );
  if (!isObject(r.value))
    return (
      `The Action Input of ${tool} must be a JSON object of arguments, e.g. {"arg": "value"}; ` +
      `got ${JSON.stringify(r.value)?.slice(0, 60)}.`
    );
  let end = r.end;
  if (fenced) {
    const close = text.indexOf('```', end);
    if (close >= 0 && !text.slice(end, close).trim()) end = close + 3;
  }
  return { args: r.value, end };
}

function where(text: string, offset: number): string {
  const line = text.slice(0, offset).split('\n').length;
  return `line ${line}: ${JSON.stringify(text.slice(offset, offset + 24))}`;
}

function formatAction(a: Action): string {
  const keys = Object.keys(a.args);
  if (keys.every((k) => IDENTIFIER.test(k)))
    return `Action: ${a.name}(${keys.map((k) => `${k}=${JSON.stringify(a.args[k])}`).join(', ')})`;
  return `Action: ${a.name}\nAction Input: ${JSON.stringify(a.args)}`;
}
