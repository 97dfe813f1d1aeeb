import type { Action, Decision, ParseContext, Parser, ResponsePart, ToolSpec } from '../../core/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, newActionId, responseText } from '../../core/index.js';
import { LiteralError, readLiteral, setKey, skipSpace } from './literal-reader.js';
import { formatHint, hintedError, isObject, observationResults, toolList } from './text-parser-pieces.js';

/** Options of the XML parser. */
export interface XmlParserOptions {
  /** Accept several `<action>` elements in one reply (default false). */
  multipleActions?: boolean;
}

const THINK_OPEN = /<(think|thinking|thought)\s*>/gi;
const DECISION_OPEN = /<(action|final_answer|wait)\b/gi;
const ENTITY = /&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function xmlHint(multiple: boolean): string {
  return formatHint({
    intro: 'Reply with XML tags:',
    act: '<think>your reasoning</think>\n<action name="tool_name"><arg name="arg_name">value</arg>...</action>',
    several: multiple ? 'several <action> elements are allowed' : undefined,
    final: '<think>your reasoning</think>\n<final_answer>the answer</final_answer>',
  });
}

/**
 * Parses `<think>`, `<action name="…"><arg name="…">…</arg></action>`, `<final_answer>` and `<wait/>`.
 * It is a tolerant scanner, not an XML parser: a reply needs no root element (`<final_answer>42</final_answer>`
 * alone is fine), text may hold a raw `<` or `&`, and the standard entities (`&lt;`, `&amp;`, `&#60;`…) are
 * decoded. `<![CDATA[…]]>` keeps an argument verbatim. Argument text is typed by the tool's JSON Schema when the
 * engine passes specs (a `string` property stays text, others are read as JSON); without a schema, text that
 * is a JSON number, boolean, null, array or object is read as JSON, and `type="string"` forces text.
 */
export function xmlParser(options: XmlParserOptions = {}): Parser {
  const multiple = options.multipleActions ?? false;
  const hint = xmlHint(multiple);
  const fail = hintedError(hint);

  return {
    name: 'xml',
    formatResults: observationResults,
    parse(response, ctx) {
      const raw = responseText(response);
      if (!raw.trim()) return fail('Your reply was empty.', raw);
      const { thoughts, rest } = takeThoughts(raw);
      const actions: Action[] = [];
      let final: string | undefined;
      let wait = false;
      DECISION_OPEN.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = DECISION_OPEN.exec(rest))) {
        const tag = readTag(rest, m.index);
        if (typeof tag === 'string') return fail(tag, raw);
        const kind = m[1].toLowerCase();
        if (kind === 'action') {
          const a = readAction(rest, tag, ctx);
          if (typeof a === 'string') return fail(a, raw);
          actions.push(a.action);
          DECISION_OPEN.lastIndex = a.end;
        } else if (kind === 'final_answer') {
          if (final !== undefined) return fail('Your reply has two <final_answer> elements; send one.', raw);
          const body = tag.selfClosing
            ? { text: '', end: tag.end }
            : readUntilClose(rest, tag.end, 'final_answer', true);
          final = decode(body.text).trim();
          DECISION_OPEN.lastIndex = body.end;
        } else {
          wait = true;
          DECISION_OPEN.lastIndex = tag.selfClosing ? tag.end : readUntilClose(rest, tag.end, 'wait', true).end;
        }
      }
      const withThought = thoughts.length ? { rationale: thoughts.join('\n') } : {};
      if (final !== undefined && actions.length)
        return fail(
          "Your reply has both an <action> and a <final_answer>: send one of them. The action's result comes back to you in the next turn.",
          raw,
        );
      if (actions.length > 1 && !multiple)
        return fail(`Your reply has ${actions.length} <action> elements; send exactly one per reply.`, raw);
      if (actions.length) return { mode: 'act', actions, ...withThought };
      if (final !== undefined) return { mode: 'final', answer: final, ...withThought };
      if (wait) return { mode: 'wait', ...withThought };
      return fail('Your reply has no <action> and no <final_answer> element.', raw);
    },

    format(decision: Decision): ResponsePart[] {
      const out: string[] = [];
      if (decision.rationale) out.push(`<think>${escapeText(decision.rationale)}</think>`);
      if (decision.mode === 'act') {
        for (const a of decision.actions) {
          const args = Object.entries(a.args).map(([k, v]) => formatArg(k, v));
          out.push(`<action name="${escapeAttr(a.name)}">${args.join('')}</action>`);
        }
      } else if (decision.mode === 'final') out.push(`<final_answer>${escapeText(decision.answer)}</final_answer>`);
      else if (decision.mode === 'wait') out.push('<wait/>');
      else throw new Error('the XML format has no branch decisions');
      return [{ type: 'text', text: out.join('\n') }];
    },

    instructions(tools: readonly ToolSpec[]): string {
      return [
        'You solve the task step by step. In each reply, think, then either call a tool or give the final answer.',
        hint,
        'Write each argument as its own <arg> element. Text arguments are written as-is (no ' +
          'quotes); numbers, booleans, lists and objects as JSON.',
        multiple
          ? 'You may write several <action> elements when the calls do not depend on each other.'
          : 'Write one <action> per reply.',
        'After an <action>, stop: the tool result comes back to you in the next turn.',
        `Available tools:\n${toolList(tools, 'arguments (JSON Schema)')}`,
      ].join('\n');
    },
  };
}

interface Tag {
  attrs: Record<string, string>;
  selfClosing: boolean;
  /** Offset just after `>`. */
  end: number;
}

/** Reads an opening tag at `start` (`<name attr="v" ...>` or `.../>`), respecting quotes in attribute values. */
function readTag(text: string, start: number): Tag | string {
  let i = start + 1;
  while (i < text.length && /[\w-]/.test(text[i])) i++;
  const name = text.slice(start + 1, i);
  const attrs: Record<string, string> = {};
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] === '>') return { attrs, selfClosing: false, end: i + 1 };
    if (text.startsWith('/>', i)) return { attrs, selfClosing: true, end: i + 2 };
    const am = /^([A-Za-z_][\w.-]*)\s*=\s*/.exec(text.slice(i, i + 80));
    if (!am)
      return (
        `The <${name}> tag is not well formed near ${JSON.stringify(text.slice(i, i + 30))}: ` +
        `write attributes as name="value" and close the tag with ">".`
      );
    i += am[0].length;
    const q = text[i];
    if (q !== '"' && q !== "'") return `Attribute ${am[1]} of <${name}> needs a quoted value, e.g. ${am[1]}="...".`;
    const close = text.indexOf(q, i + 1);
    if (close < 0) return `Attribute ${am[1]} of <${name}> has no closing quote.`;
    setKey(attrs, am[1].toLowerCase(), decode(text.slice(i + 1, close)));
    i = close + 1;
  }
}

/** Content up to `</name>` (case-insensitive). When `lenient`, a missing close tag takes the rest of the text. */
function readUntilClose(text: string, from: number, name: string, lenient: true): { text: string; end: number };
function readUntilClose(
  text: string,
  from: number,
  name: string,
  lenient: false,
): { text: string; end: number } | undefined;
function readUntilClose(
  text: string,
  from: number,
  name: string,
  lenient: boolean,
): { text: string; end: number } | undefined {
  const re = new RegExp(`</${name}\\s*>`, 'gi');
  re.lastIndex = from;
  const m = re.exec(text);
  if (m) return { text: text.slice(from, m.index), end: m.index + m[0].length };
  return lenient ? { text: text.slice(from), end: text.length } : undefined;
}

/** Pulls out `<think>` blocks (an unclosed one ends at the next decision tag). */
function takeThoughts(text: string): { thoughts: string[]; rest: string } {
  const thoughts: string[] = [];
  let rest = '';
  let pos = 0;
  THINK_OPEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = THINK_OPEN.exec(text))) {
    rest += text.slice(pos, m.index);
    const start = m.index + m[0].length;
    let body = readUntilClose(text, start, m[1], false);
    if (!body) {
      DECISION_OPEN.lastIndex = start;
      const next = DECISION_OPEN.exec(text);
      const end = next ? next.index : text.length;
      body = { text: text.slice(start, end), end };
    }
    const t = decode(body.text).trim();
    if (t) thoughts.push(t);
    pos = body.end;
    THINK_OPEN.lastIndex = body.end;
  }
  return { thoughts, rest: rest + text.slice(pos) };
}

function readAction(text: string, tag: Tag, ctx: ParseContext): { action: Action; end: number } | string {
  const name = tag.attrs.name?.trim();
  if (!name) return 'An <action> has no name attribute: write <action name="tool_name">.';
  const args: Record<string, unknown> = {};
  if (tag.selfClosing) return { action: { id: newActionId(), name, args }, end: tag.end };
  const spec = ctx.specs?.find((s) => s.name === name);
  let i = tag.end;
  for (;;) {
    i = skipSpace(text, i);
    if (/^<\/action\s*>/i.test(text.slice(i, i + 12)))
      return { action: { id: newActionId(), name, args }, end: text.indexOf('>', i) + 1 };
    if (/^<arg\b/i.test(text.slice(i, i + 5))) {
      const at = readTag(text, i);
      if (typeof at === 'string') return at;
      const argName = at.attrs.name;
      if (argName === undefined)
        return `An <arg> of ${name} has no name attribute: write <arg name="arg_name">value</arg>.`;
      let value: string;
      if (at.selfClosing) {
        value = '';
        i = at.end;
      } else {
        const body = readArgBody(text, at.end);
        if (!body) return `The <arg name="${argName}"> of ${name} is not closed: add </arg> after its value.`;
        value = body.text;
        i = body.end;
      }
      if (Object.prototype.hasOwnProperty.call(args, argName))
        return `The argument "${argName}" of ${name} is given twice.`;
      const typed = typeArg(value, at.attrs.type, propertyType(spec, argName));
      if (typed instanceof LiteralError)
        return `The argument "${argName}" of ${name} should be JSON (type="json") but is not: ${typed.message}.`;
      setKey(args, argName, typed);
      continue;
    }
    // No <arg> elements: a JSON object as the body is accepted too.
    const body = readUntilClose(text, i, 'action', false);
    if (!body) return `The <action name="${name}"> is not closed: add </action> after its arguments.`;
    const inner = decode(body.text).trim();
    if (Object.keys(args).length === 0 && inner.startsWith('{')) {
      const r = readLiteral(inner, 0);
      if (!(r instanceof LiteralError) && isObject(r.value) && !inner.slice(r.end).trim())
        return { action: { id: newActionId(), name, args: r.value }, end: body.end };
    }
    return (
      `Could not read the arguments of ${name}: inside <action> write one <arg ` +
      `name="...">value</arg> per argument (found ${JSON.stringify(inner.slice(0, 40))}).`
    );
  }
}

/** An argument's text: a CDATA section verbatim, else the text up to `</arg>` with entities decoded. */
function readArgBody(text: string, from: number): { text: string; end: number } | undefined {
  if (text.startsWith('<![CDATA[', from)) {
    const close = text.indexOf(']]>', from);
    if (close >= 0) {
      const after = /^\s*<\/arg\s*>/i.exec(text.slice(close + 3, close + 20));
      if (after) return { text: text.slice(from + 9, close), end: close + 3 + after[0].length };
    }
  }
  const body = readUntilClose(text, from, 'arg', false);
  return body && { text: trimOneNewline(decode(body.text)), end: body.end };
}

/** Drops one line break right after the open tag and one "\n" right before the close tag (block-style layout). */
function trimOneNewline(s: string): string {
  if (s.startsWith('\r\n')) s = s.slice(2);
  else if (s.startsWith('\n')) s = s.slice(1);
  if (s.endsWith('\n')) s = s.slice(0, -1);
  return s;
}

function propertyType(spec: ToolSpec | undefined, arg: string): 'string' | 'other' | undefined {
  const props = spec?.inputSchema.properties as Record<string, { type?: unknown }> | undefined;
  const t = props && Object.prototype.hasOwnProperty.call(props, arg) ? props[arg]?.type : undefined;
  if (t === undefined) return undefined;
  if (t === 'string' || (Array.isArray(t) && t.includes('string'))) return 'string';
  return 'other';
}

const JSONISH = /^(?:-?\d|\[|\{|true$|false$|null$)/;

/** The value of untyped text: JSON when it reads as a non-string JSON value, else undefined; past the nesting limit, an error. */
function untypedJson(text: string): unknown {
  const t = text.trim();
  if (!JSONISH.test(t)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return undefined; // not JSON: the argument is text
  }
  if (nestsDeeperThan(v)) return new LiteralError(`values are nested more than ${MAX_JSON_DEPTH} levels deep`, 0);
  return typeof v === 'string' ? undefined : v;
}

function typeArg(text: string, typeAttr: string | undefined, schemaType: 'string' | 'other' | undefined): unknown {
  if (typeAttr === 'string' || (typeAttr === undefined && schemaType === 'string')) return text;
  if (typeAttr === 'json') {
    const r = readLiteral(text.trim(), 0);
    return r instanceof LiteralError ? r : r.value;
  }
  if (schemaType === 'other') {
    const r = readLiteral(text.trim(), 0);
    // text that is not JSON stays text: the tool's validation then names the expected type
    return r instanceof LiteralError || text.trim().slice(r.end).trim() ? text : r.value;
  }
  const v = untypedJson(text);
  return v === undefined ? text : v;
}

function decode(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (whole, e: string) => {
    if (e[0] !== '#') return NAMED[e];
    const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

function formatArg(name: string, value: unknown): string {
  const open = `<arg name="${escapeAttr(name)}"`;
  if (typeof value !== 'string') return `${open}>${escapeText(JSON.stringify(value))}</arg>`;
  const typeAttr = untypedJson(value) !== undefined ? ' type="string"' : '';
  // a value that starts or ends with a newline gets one of padding, which the reader drops again
  const pad = value.startsWith('\n') || value.startsWith('\r\n') || value.endsWith('\n') ? '\n' : '';
  return `${open}${typeAttr}>${pad}${escapeText(value)}${pad}</arg>`;
}
