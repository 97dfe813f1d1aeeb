import type { Action, Decision, Parser, ResponsePart, ToolSpec } from '../../core/index.js';
import { ParseError, newActionId, responseText } from '../../core/index.js';

const KEYS = ['thought', 'action', 'actions', 'final_answer', 'wait'];
const FORMAT_HINT =
  'Reply with exactly one JSON object: {"thought": "...", "action": {"name": "<tool>", "args": {...}}} to call a tool, ' +
  '{"thought": "...", "actions": [{"name": ..., "args": ...}, ...]} to call several, or {"thought": "...", "final_answer": "..."} to finish.';

/**
 * Parses `{thought, action: {name, args} | actions: [...], final_answer}` replies. Tolerates code fences and
 * text around the object; rejects replies that are ambiguous (two different decision objects, or an action
 * and a final answer together) with a ParseError that says what to send instead.
 */
export function jsonParser(): Parser {
  return {
    name: 'json',
    parse(response) {
      const text = responseText(response);
      if (!text.trim()) return new ParseError(`Your reply was empty. ${FORMAT_HINT}`, text);
      const objects = findDecisionObjects(text);
      if (objects.length === 0) return new ParseError(`No JSON decision object found in your reply. ${FORMAT_HINT}`, text);
      const distinct = [...new Set(objects.map((o) => JSON.stringify(o)))];
      if (distinct.length > 1) return new ParseError(`Your reply holds ${distinct.length} different JSON decision objects; send exactly one. ${FORMAT_HINT}`, text);
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
      const list = tools.map((t) => `- ${t.name}: ${t.description}\n  args JSON Schema: ${JSON.stringify(t.inputSchema)}`).join('\n');
      return `${FORMAT_HINT}\nAvailable tools:\n${list || '(none)'}`;
    },
  };
}

function toDecision(obj: Record<string, unknown>, raw: string): Decision | ParseError {
  const rationale = typeof obj.thought === 'string' ? obj.thought : undefined;
  const withThought = rationale !== undefined ? { rationale } : {};
  const hasFinal = 'final_answer' in obj && obj.final_answer !== null;
  const hasAction = ('action' in obj && obj.action !== null) || ('actions' in obj && obj.actions !== null);
  if (hasFinal && hasAction) return new ParseError(`Your reply has both an action and a final_answer; send one or the other. ${FORMAT_HINT}`, raw);
  if (hasFinal) {
    const a = obj.final_answer;
    return { mode: 'final', answer: typeof a === 'string' ? a : JSON.stringify(a), ...withThought };
  }
  if (hasAction) {
    if ('action' in obj && 'actions' in obj) return new ParseError(`Use either "action" or "actions", not both. ${FORMAT_HINT}`, raw);
    const list = 'actions' in obj ? obj.actions : [obj.action];
    if (!Array.isArray(list) || list.length === 0) return new ParseError(`"actions" must be a non-empty array of {"name", "args"} objects. ${FORMAT_HINT}`, raw);
    const actions: Action[] = [];
    for (const [i, item] of list.entries()) {
      const a = toAction(item);
      if (typeof a === 'string') return new ParseError(`Action ${i + 1}: ${a} ${FORMAT_HINT}`, raw);
      actions.push(a);
    }
    return { mode: 'act', actions, ...withThought };
  }
  if (obj.wait === true) return { mode: 'wait', ...withThought };
  return new ParseError(`Your JSON object has no "action", "actions" or "final_answer". ${FORMAT_HINT}`, raw);
}

function toAction(item: unknown): Action | string {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return `expected an object {"name": ..., "args": {...}}, got ${JSON.stringify(item)}.`;
  const o = item as Record<string, unknown>;
  const name = o.name ?? o.tool;
  if (typeof name !== 'string' || !name) return 'the action has no "name" (the tool to call).';
  const args = o.args ?? o.arguments ?? o.input ?? {};
  if (!args || typeof args !== 'object' || Array.isArray(args)) return `"args" of ${name} must be a JSON object, got ${JSON.stringify(args)}.`;
  return { id: newActionId(), name, args: args as Record<string, unknown> };
}

/** Every top-level JSON object in the text that looks like a decision (fenced blocks first). */
function findDecisionObjects(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const span of balancedObjects(text)) {
    try {
      const v = JSON.parse(span);
      if (v && typeof v === 'object' && !Array.isArray(v) && KEYS.some((k) => k in v)) out.push(v);
    } catch {
      // not JSON: text around the decision may contain braces
    }
  }
  return out;
}

/** Spans of balanced `{...}` at nesting depth 0, aware of JSON strings and escapes. */
export function balancedObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
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
