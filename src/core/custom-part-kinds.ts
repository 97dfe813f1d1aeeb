import type { z } from 'zod';
import { QitosError } from './errors.js';
import { formatZodIssue } from './format-zod-issue.js';
import { newId } from './id.js';
import type { CustomPart, Message } from './message.js';
import type { ModelFilePart } from './model-message.js';

/** What a custom part becomes for a provider: text, a file (an image, a PDF), several of them, or nothing (`null`: skipped). */
export type CustomPartRendering = string | ModelFilePart | ReadonlyArray<string | ModelFilePart> | null;

/** One registered part kind: the schema of its `data`, and how a provider is to see it. */
export interface CustomPartKind<T = unknown> {
  schema: z.ZodType<T>;
  /** Called when the history is converted for a model; `role` is the role of the message holding the part. */
  render(data: T, role: 'user' | 'assistant'): CustomPartRendering;
}

/** The part kinds a run knows, by name (`EngineOptions.partKinds`): passed in, never a global registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind has its own data type
export type CustomPartKinds = Readonly<Record<string, CustomPartKind<any>>>;

/** Defines a part kind with its data type inferred from the schema. */
export function definePartKind<S extends z.ZodType>(kind: {
  schema: S;
  render(data: z.output<S>, role: 'user' | 'assistant'): CustomPartRendering;
}): CustomPartKind<z.output<S>> {
  // A schema's output type is what its parse returns: the narrower static type zod cannot state by itself.
  return { schema: kind.schema as unknown as z.ZodType<z.output<S>>, render: kind.render };
}

function kindOf(kinds: CustomPartKinds | undefined, kind: string): CustomPartKind {
  const k = kinds && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
  if (!k) {
    const known = kinds ? Object.keys(kinds).join(', ') : '';
    throw new QitosError(
      'internal',
      `custom part kind "${kind}" is not registered (EngineOptions.partKinds); registered: ${known || 'none'}`,
    );
  }
  return k;
}

/** Checks a custom part's data against its kind's schema; returns the parsed data or throws naming kind and field. */
export function checkCustomPart(part: CustomPart, kinds: CustomPartKinds | undefined): unknown {
  const parsed = kindOf(kinds, part.kind).schema.safeParse(part.data);
  if (!parsed.success)
    throw new QitosError(
      'internal',
      `custom part "${part.kind}" (${part.id}): ${formatZodIssue(parsed.error.issues[0], '(data)')}`,
    );
  return parsed.data;
}

/** A new custom part of a registered kind, its data checked against the kind's schema. */
export function customPart(kinds: CustomPartKinds, kind: string, data: unknown): CustomPart {
  const part: CustomPart = { id: newId('prt'), type: 'custom', kind, data };
  part.data = checkCustomPart(part, kinds);
  return part;
}

/** Checks every custom part of `messages` (what resume and replay do with a recorded history). */
export function checkCustomParts(messages: readonly Message[], kinds: CustomPartKinds | undefined): void {
  for (const m of messages) for (const p of m.parts) if (p.type === 'custom') checkCustomPart(p, kinds);
}

/** The model content a custom part becomes: checked, rendered by its kind, text as text parts. */
export function renderCustomPart(
  part: CustomPart,
  kinds: CustomPartKinds | undefined,
  role: 'user' | 'assistant',
): Array<{ type: 'text'; text: string } | ModelFilePart> {
  const data = checkCustomPart(part, kinds);
  const r = kindOf(kinds, part.kind).render(data, role);
  if (r === null) return [];
  const list = typeof r === 'string' || !Array.isArray(r) ? [r as string | ModelFilePart] : r;
  return list.map((x) => (typeof x === 'string' ? { type: 'text', text: x } : x));
}
