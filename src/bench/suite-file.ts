import { z } from 'zod';
import { isMap, isPair, isScalar, type LineCounter, type Node } from 'yaml';
import { YamlError, parseYaml, type ParsedYaml } from '../kit/yaml/index.js';
import { Budget, zodIssueField } from '../core/index.js';
import { McpConfig } from '../kit/mcp/index.js';
import { ScorerSpec } from './scorer-spec.js';
import { TaskFormat } from './task-file.js';

/** `suite.yaml`: what a suite folder declares. Unknown fields are errors (a typo should not be ignored). */
export const SuiteFile = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" or "-"'),
    description: z.string().optional(),
    /** Tasks JSONL, relative to the suite folder. */
    tasks: z.string().min(1),
    /** Format of the tasks file (default qitos). */
    format: TaskFormat.default('qitos'),
    scorer: ScorerSpec,
    /** Default agent module, relative to the suite folder. */
    agent: z.string().min(1).optional(),
    /** Default model, `provider:model`. */
    model: z.string().min(1).optional(),
    budget: Budget.strict().optional(),
    epochs: z.number().int().positive().default(1),
    /** MCP servers every trial connects to (its own connection per trial); a config's `mcp:` servers of the same name win. */
    mcp: McpConfig.optional(),
  })
  .strict();
export type SuiteFile = z.infer<typeof SuiteFile>;

/**
 * Parses and validates suite.yaml text. Errors name the file, the line and the field
 * (`suite.yaml line 7, field "scorer.tolerance": Too small: expected number to be >=0`).
 */
export function parseSuiteFile(text: string, file: string): SuiteFile {
  let parsed: ParsedYaml;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    if (!YamlError.isInstance(err)) throw err;
    throw new Error(
      `${file} line ${err.line}: invalid YAML: ${err.message.replace(/^YAML syntax error: /, '').replace(/:\s*$/, '')}`,
    );
  }
  const { doc, lines: lineCounter } = parsed;
  const data = parsed.value ?? {};
  const r = SuiteFile.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = zodIssueField(issue);
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path.map(String), issue.keys[0]] : issue.path.map(String);
  const line = lineOf(doc.contents as Node | null, keys, lineCounter);
  const missing = issue.code === 'invalid_type' && valueAt(data, issue.path.map(String)) === undefined;
  const what =
    issue.code === 'unrecognized_keys' ? 'unknown field' : missing ? 'required field missing' : issue.message;
  const fieldText = field ? `field "${field}"` : 'the document';
  return throwAt(file, line, `${fieldText}: ${what}`);
}

function throwAt(file: string, line: number | undefined, message: string): never {
  throw new Error(`${file}${line ? ` line ${line}` : ''}, ${message}`);
}

/** The line of the deepest node on `path` that exists (the key's line for a map entry). */
function lineOf(root: Node | null, path: string[], lc: LineCounter): number | undefined {
  let node: unknown = root;
  let line = rangeLine(root, lc);
  for (const key of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
    if (!pair) {
      // A missing key: point at the map it should be in.
      line = rangeLine(node, lc) ?? line;
      break;
    }
    line = rangeLine(pair.key as Node, lc) ?? line;
    node = pair.value;
    if (node && !isMap(node)) line = rangeLine(node as Node, lc) ?? line;
  }
  return line;
}

function valueAt(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function rangeLine(node: unknown, lc: LineCounter): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? lc.linePos(range[0]).line : undefined;
}
