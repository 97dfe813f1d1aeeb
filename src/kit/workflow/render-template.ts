import { WorkflowError } from './workflow-error.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;

/** The value at a dotted path of the variables (own fields only), or throws naming the node and the variable. */
export function lookupVariable(vars: Readonly<Record<string, unknown>>, path: string, nodeId: string): unknown {
  let v: unknown = vars;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key))
      throw new WorkflowError(`node "${nodeId}": {{${path}}}: there is no variable "${path}"`, { nodeId });
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** Fills the `{{name}}` / `{{a.b}}` placeholders of a template: strings as they are, anything else as JSON. */
export function renderTemplate(template: string, vars: Readonly<Record<string, unknown>>, nodeId: string): string {
  return template.replace(PLACEHOLDER, (_, path: string) => {
    const v = lookupVariable(vars, path, nodeId);
    return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
  });
}

/**
 * Renders a tool node's parameters: a string that is exactly one placeholder becomes the variable's value (any
 * type), other strings are rendered as text, lists and objects are rendered item by item.
 */
export function renderParameters(value: unknown, vars: Readonly<Record<string, unknown>>, nodeId: string): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    return whole ? structuredClone(lookupVariable(vars, whole[1], nodeId)) : renderTemplate(value, vars, nodeId);
  }
  if (Array.isArray(value)) return value.map((v) => renderParameters(v, vars, nodeId));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: renderParameters(v, vars, nodeId),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}
