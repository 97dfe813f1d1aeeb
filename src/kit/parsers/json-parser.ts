import type { Action, Decision, Parser, ResponsePart, ToolSpec } from '../../core/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, newActionId, responseText, type ParseError } from '../../core/index.js';
import { LiteralError, readLiteral } from './literal-reader.js';
import { hintedError, isObject, observationResults, toolList } from './text-parser-pieces.js';

const KEYS = ['thought', 'action', 'actions', 'final_answer', 'wait'];
const FORMAT_HINT =
  'Reply with exactly one JSON object: {"thought": "...", "action": {"name": "<tool>", "args": {...}}} to call a tool, ' +
  '{"thought": "...", "actions": [{"name": ..., "args": ...}, ...]} to call several, or ' +
  '{"thought": "...", "final_answer": "..."} to finish.';
const fail = hintedError(FORMAT_HINT, ' ');

/**
 * Parses `{thought, action: {name, args} | actions: [...], final_answer}` replies (and `{"wait": true}`).
 * Tolerates code fences, text around the object and Python-style literals (`'str'`, `True`, `None`); rejects replies
 * that are ambiguous (two different decision objects, or an action
 * and a final answer together) with a ParseError that says what to send instead.
 */
export function jsonParser(): Parser {
  return {
    name: 'json',
    formatResults: observationResults,
    parse(response) {
      const text = responseText(response);
      if (!text.trim()) return fail('Your reply was empty.', text);
      const objects = findDecisionObjects(text);
      if (objects.length === 0) return fail('No JSON decision object found in your reply.', text);
      if (objects.some((o) => nestsDeeperThan(o)))
        return fail(`Your JSON decision nests deeper than ${MAX_JSON_DEPTH} levels; send flatter arguments.`, text);
      const distinct = [...new Set(objects.map((o) => JSON.stringify(o)))];
      if (distinct.length > 1)
        return fail(`Your reply holds ${distinct.length} different JSON decision objects; send exactly one.`, text);
      return toDecision(objects[0], text);
    },
    format(decision: Decision): ResponsePart[] {
      const obj: Record<string, unknown> = {};
      if (decision.rationale !== undefined) obj.thought = decision.rationale;
      if (decision.mode === 'final') obj.final_answer = decision.answer;
      else if (decision.mode === 'wait') obj.wait = true;
      else if (decision.mode === 'act') {
        const acts = decision.actions.map((a) => ({ name: a.name, args: a.args }));
        if (acts.length === 1) obj.action = acts[0];
        else obj.actions = acts;
      } else throw new Error('the JSON format has no branch decisions');
      return [{ type: 'text', text: JSON.stringify(obj) }];
    },
    instructions(tools: readonly ToolSpec[]): string {
      return `${FORMAT_HINT}\nAvailable tools:\n${toolList(tools, 'args JSON Schema')}`;
    },
  };
}

function toDecision(obj: Record<string, unknown>, raw: string): Decision | ParseError {
  const rationale = typeof obj.thought === 'string' ? obj.thought : undefined;
  const withThought = rationale !== undefined ? { rationale } : {};
  const hasFinal = 'final_answer' in obj && obj.final_answer !== null;
  const hasAction = ('action' in obj && obj.action !== null) || ('actions' in obj && obj.actions !== null);
  if (hasFinal && hasAction)
    return fail(`Your reply has both an action and a final_answer; send one or the other.`, raw);
  if (hasFinal) {
    const a = obj.final_answer;
    return { mode: 'final', answer: typeof a === 'string' ? a : JSON.stringify(a), ...withThought };
  }
  if (hasAction) {
    if ('action' in obj && 'actions' in obj) return fail(`Use either "action" or "actions", not both.`, raw);
    const list = 'actions' in obj ? obj.actions : [obj.action];
    if (!Array.isArray(list) || list.length === 0)
      return fail(`"actions" must be a non-empty array of {"name", "args"} objects.`, raw);
    const actions: Action[] = [];
    for (const [i, item] of list.entries()) {
      const a = toAction(item);
      if (typeof a === 'string') return fail(`Action ${i + 1}: ${a}`, raw);
      actions.push(a);
    }
    return { mode: 'act', actions, ...withThought };
  }
  if (obj.wait === true) return { mode: 'wait', ...withThought };
  return fail(`Your JSON object has no "action", "actions" or "final_answer".`, raw);
}

function toAction(item: unknown): Action | string {
  if (!item || typeof item !== 'object' || Array.isArray(item))
    return `expected an object {"name": ..., "args": {...}}, got ${JSON.stringify(item)}.`;
  const o = item as Record<string, unknown>;
  const name = o.name ?? o.tool;
  if (typeof name !== 'string' || !name) return 'the action has no "name" (the tool to call).';
  const args = o.args ?? o.arguments ?? o.input ?? {};
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return `"args" of ${name} must be a JSON object, got ${JSON.stringify(args)}.`;
  return { id: newActionId(), name, args: args as Record<string, unknown> };
}

/** Every top-level object in the text that looks like a decision. */
function findDecisionObjects(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const span of balancedObjects(text)) {
    const v = readObject(span);
    if (v && KEYS.some((k) => Object.prototype.hasOwnProperty.call(v, k))) out.push(v);
  }
  return out;
}

/** JSON, or else the Python spelling of it (`'str'`, `True`, `None`) that models also write; undefined if neither. */
function readObject(span: string): Record<string, unknown> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(span);
  } catch {
    const r = readLiteral(span, 0);
    // text around the decision may contain braces that are not an object at all
    if (r instanceof LiteralError || span.slice(r.end).trim()) return undefined;
    v = r.value;
  }
  return isObject(v) ? v : undefined;
}

/** Spans of balanced `{...}` at nesting depth 0, aware of quoted strings (JSON's `"` and Python's `'`) and escapes. */
export function balancedObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if ((c === '"' || c === "'") && depth > 0) quote = c;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}
