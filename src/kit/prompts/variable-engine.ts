import { QitosError, errorMessage, markErrorClass } from '../../core/index.js';

/** What providers read when a template is resolved: task and state fields, plus anything a caller adds. */
export interface VariableContext {
  task?: { id?: string; objective?: string; inputs?: Record<string, unknown>; metadata?: Record<string, unknown> };
  state?: unknown;
  [key: string]: unknown;
}

/**
 * A source of variable values. `resolve` returns the value of `name` (`arg` is the text after a colon, as in
 * `{{date:Asia/Tokyo}}`), or undefined when the provider does not know the name. Strings are used as-is,
 * other values are rendered (numbers with String, objects as JSON). A provider that throws makes
 * `resolve` throw a VariableError naming the variable.
 */
export interface VariableProvider {
  readonly name: string;
  resolve(name: string, arg: string | undefined, ctx: VariableContext): unknown;
}

/** Options of a VariableEngine. */
export interface VariableEngineOptions {
  providers?: Iterable<VariableProvider>;
  /** What an unknown variable becomes: left as written (`keep`, default) or a VariableError (`error`). */
  unknown?: 'keep' | 'error';
}

/** A template could not be resolved: unknown variables (with `unknown: 'error'`) or a provider failed. */
export class VariableError extends QitosError {
  static {
    markErrorClass(this, 'VariableError');
  }

  constructor(
    message: string,
    readonly variables: string[],
    options?: { cause?: unknown },
  ) {
    super('prompt', message, options);
    this.name = 'VariableError';
  }
}

/**
 * One pass over the template: `\\{{` (a backslash before `{{`) writes a single backslash and leaves the
 * placeholder live; `\{{` writes a literal `{{`; `{{ name }}` or `{{name:arg}}` is a placeholder.
 */
const TOKEN = /\\(\\)(?=\{\{)|\\\{\{|\{\{\s*([A-Za-z_][\w.-]*)(?::([^{}]*?))?\s*\}\}/g;

/**
 * Fills `{{name}}` placeholders from providers, in one pass: a value is inserted as-is and never scanned
 * again, so an untrusted value holding `{{…}}` stays literal. Providers are asked in registration order; the
 * first that knows a name wins. Braces do not nest: in `{{a{{b}}}}` only `{{b}}` is a placeholder.
 * Instances are independent (no global registry): register providers on the engine you pass around.
 */
export class VariableEngine {
  private readonly providers: VariableProvider[] = [];
  readonly unknown: 'keep' | 'error';

  constructor(options: VariableEngineOptions = {}) {
    this.unknown = options.unknown ?? 'keep';
    for (const p of options.providers ?? []) this.register(p);
  }

  /** Adds a provider (after the existing ones). Two providers with one name are an error. */
  register(provider: VariableProvider): this {
    if (this.providers.some((p) => p.name === provider.name))
      throw new Error(`a variable provider named "${provider.name}" is already registered`);
    this.providers.push(provider);
    return this;
  }

  /** Names of the registered providers, in the order they are asked. */
  get providerNames(): string[] {
    return this.providers.map((p) => p.name);
  }

  /** The template with its placeholders filled. */
  resolve(template: string, ctx: VariableContext = {}): string {
    const unknown: string[] = [];
    const out = template.replace(
      TOKEN,
      (whole: string, backslash: string | undefined, name: string | undefined, arg: string | undefined) => {
        if (backslash) return backslash;
        if (name === undefined) return '{{';
        const value = this.lookup(name, arg, ctx);
        if (value === undefined) {
          unknown.push(arg === undefined ? name : `${name}:${arg}`);
          return whole;
        }
        try {
          return render(value);
        } catch (err) {
          // JSON.stringify throws on a cycle or a BigInt inside an object: name the variable, not just the cause
          throw new VariableError(
            `prompt variable {{${arg === undefined ? name : `${name}:${arg}`}}} has a value that ` +
              `cannot be rendered as text: ${errorMessage(err)}`,
            [name],
            { cause: err },
          );
        }
      },
    );
    if (unknown.length && this.unknown === 'error') {
      const list = [...new Set(unknown)];
      throw new VariableError(
        `unknown prompt ` +
          `variable${list.length > 1 ? 's' : ''}: ${list.map((n) => `{{${n}}}`).join(', ')} ` +
          `(providers: ${this.providerNames.join(', ') || 'none'}); write \\{{ for a literal {{`,
        list,
      );
    }
    return out;
  }

  /** The variable names a template refers to (escaped placeholders excluded). */
  variables(template: string): string[] {
    const names: string[] = [];
    for (const m of template.matchAll(TOKEN)) if (m[2] !== undefined) names.push(m[2]);
    return names;
  }

  private lookup(name: string, arg: string | undefined, ctx: VariableContext): unknown {
    for (const p of this.providers) {
      let v: unknown;
      try {
        v = p.resolve(name, arg, ctx);
      } catch (err) {
        throw new VariableError(
          `prompt variable {{${arg === undefined ? name : `${name}:${arg}`}}} failed in provider "${p.name}": ${errorMessage(err)}`,
          [name],
          { cause: err },
        );
      }
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

/** Reads a dotted path (`inputs.city`) through own properties only (never `constructor` or `__proto__`). */
export function readPath(root: unknown, path: readonly string[]): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
