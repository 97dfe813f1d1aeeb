import { z } from 'zod';
import { canonicalJson, zodIssueField, zodIssueMessage } from '../../../core/index.js';
import { WorkflowError } from '../workflow-error.js';

/** The JSON form of a node config of kind `K` with fields `T` (what `toJSON` returns and `fromJSON` reads). */
export type NodeJSON<K extends string, T> = { kind: K } & T;

/** A node config instance: its fields (read-only, deeply frozen) plus the value-object methods. */
export type NodeConfigValue<K extends string, T> = Readonly<T> & {
  readonly kind: K;
  /** A plain JSON copy (defaults filled in), `{ kind, ...fields }`. */
  toJSON(): NodeJSON<K, T>;
  /** True when `other` is a node config of the same kind with the same fields (key order ignored). */
  equals(other: unknown): boolean;
  /** A new, validated config with `patch` applied; this one is unchanged. */
  with(patch: Partial<T>): NodeConfigValue<K, T>;
};

/** The class-like object of one node kind: its schema and the ways to make an instance. */
export interface NodeConfigClass<K extends string, S extends z.ZodObject> {
  readonly kind: K;
  /** The fields' schema (without `kind`). */
  readonly schema: S;
  /**
   * Validates `input` (a `kind` equal to this one is allowed); an invalid config throws a WorkflowError naming the node
   * id and the field.
   */
  create(input: z.input<S>): NodeConfigValue<K, z.output<S>>;
  /** Reads the JSON form (`{ kind, ...fields }`); the kind must match. */
  fromJSON(json: unknown): NodeConfigValue<K, z.output<S>>;
  /** True when `value` is an instance of this kind. */
  is(value: unknown): value is NodeConfigValue<K, z.output<S>>;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Parses `input` with `schema`, or throws a WorkflowError naming the node (id or `(unnamed)`), kind and field. */
export function parseNodeFields<S extends z.ZodType>(kind: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const rawId = input && typeof input === 'object' ? (input as { id?: unknown }).id : undefined;
  const id = typeof rawId === 'string' && rawId ? rawId : undefined;
  const field = zodIssueField(issue) || '(config)';
  throw new WorkflowError(`node ${id ? `"${id}"` : '(unnamed)'} (${kind}): ${field}: ${zodIssueMessage(issue)}`, {
    ...(id ? { nodeId: id } : {}),
    field,
  });
}

const BRAND = Symbol('qitos.workflow.node');

/**
 * A deep copy of a config's data with -0 stored as 0: a config is JSON data, and JSON has no -0, so a config
 * holding one would not come back equal from its JSON text. Keys are defined, not assigned (a `__proto__` key
 * stays data).
 */
function configCopy(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(configCopy);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    Object.defineProperty(out, k, { value: configCopy(x), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Makes the value-object class of one node kind (the MarkerNode pattern of the design seed): instances hold only
 * configuration, are deeply frozen, compare by value, and change only by making a new one with `with`.
 */
export function defineNodeConfig<K extends string, S extends z.ZodObject>(kind: K, schema: S): NodeConfigClass<K, S> {
  type T = z.output<S>;
  type V = NodeConfigValue<K, T>;
  const strict = schema.strict();
  const make = (fields: T): V => {
    const data = configCopy(fields) as Record<string, unknown>;
    const value = Object.create(proto) as V;
    Object.defineProperty(value, BRAND, { value: kind });
    Object.defineProperty(value, 'kind', { value: kind, enumerable: true });
    for (const [k, v] of Object.entries(data))
      if (v !== undefined) Object.defineProperty(value, k, { value: deepFreeze(v), enumerable: true });
    return Object.freeze(value) as V;
  };
  const proto = {
    toJSON(this: V): NodeJSON<K, T> {
      const out: Record<string, unknown> = { kind };
      for (const [k, v] of Object.entries(this)) if (k !== 'kind') out[k] = structuredClone(v);
      return out as NodeJSON<K, T>;
    },
    equals(this: V, other: unknown): boolean {
      if (!cls.is(other)) return false;
      return other === this || canonicalJson(this.toJSON()) === canonicalJson(other.toJSON());
    },
    with(this: V, patch: Partial<T>): V {
      const { kind: _k, ...fields } = this.toJSON() as Record<string, unknown>;
      return cls.create({ ...fields, ...patch } as z.input<S>);
    },
  };
  const cls: NodeConfigClass<K, S> = {
    kind,
    schema,
    create(input) {
      // The JSON form's own kind may come along (a node copied from a file); any other kind is an unknown field.
      const fields =
        input && typeof input === 'object' && (input as { kind?: unknown }).kind === kind
          ? (({ kind: _k, ...rest }) => rest)(input as Record<string, unknown>)
          : input;
      return make(parseNodeFields(kind, strict, fields) as T);
    },
    fromJSON(json) {
      if (!json || typeof json !== 'object' || Array.isArray(json))
        throw new WorkflowError(
          `a ${kind} node config must be an object, got ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}`,
        );
      const { kind: k, ...fields } = json as Record<string, unknown>;
      if (k !== kind) {
        const id = typeof fields.id === 'string' ? `"${fields.id}"` : '(unnamed)';
        throw new WorkflowError(`node ${id}: kind: expected "${kind}", got ${JSON.stringify(k)}`, {
          ...(typeof fields.id === 'string' ? { nodeId: fields.id } : {}),
          field: 'kind',
        });
      }
      return cls.create(fields as z.input<S>);
    },
    is(value): value is V {
      return !!value && typeof value === 'object' && (value as Record<symbol, unknown>)[BRAND] === kind;
    },
  };
  return cls;
}
