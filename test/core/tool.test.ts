import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { describe, expect, it } from 'vitest';
import { defineTool, toolSpec, type AnyTool } from '../../src/core/index.js';

describe('tools take zod 4 schemas only', () => {
  it('defineTool accepts zod 4 and names a zod 3 schema, or anything else, with the fix', () => {
    expect(
      toolSpec(defineTool({ id: 'a', description: 'd', parameters: z.object({ x: z.number() }), execute: () => 'ok' }))
        .inputSchema,
    ).toMatchObject({ type: 'object' });
    const old = z3.object({ x: z3.number() }) as unknown as z.ZodType;
    expect(() => defineTool({ id: 'old', description: 'd', parameters: old, execute: () => 'x' })).toThrow(
      'defineTool("old"): parameters is a zod 3 schema; qitos-ts needs zod ^4: define it with ' +
        'zod 4 (npm install zod@^4; with zod 3.25 or later, import { z } from "zod/v4")',
    );
    expect(() =>
      defineTool({
        id: 'j',
        description: 'd',
        parameters: { type: 'object' } as unknown as z.ZodType,
        execute: () => 'x',
      }),
    ).toThrow('defineTool("j"): parameters must be a zod 4 schema, got object');
  });

  it('a tool built without defineTool is checked when its spec is made', () => {
    const tool = {
      id: 'raw',
      description: 'd',
      requires: [],
      parameters: z3.string(),
      execute: () => 'x',
    } as unknown as AnyTool;
    expect(() => toolSpec(tool)).toThrow(/^tool "raw": parameters is a zod 3 schema/);
  });
});

describe('toolSpec', () => {
  it("gives every spec its own copy of the parameters' JSON Schema: editing one changes no other", () => {
    const parameters = z.object({ city: z.string().describe('where') });
    const { $schema: _s, ...expected } = z.toJSONSchema(parameters, { io: 'input' }) as Record<string, unknown>;
    const a = defineTool({ id: 'a', description: 'A', parameters, execute: () => 'ok' });
    const b = defineTool({ id: 'b', description: 'B', parameters, execute: () => 'ok' });
    const first = toolSpec(a);
    expect(first).toEqual({ name: 'a', description: 'A', inputSchema: expected });
    expect(expected.properties).toEqual({ city: { type: 'string', description: 'where' } });
    (first.inputSchema.properties as Record<string, unknown>).city = 'edited';
    delete first.inputSchema.type;
    expect(toolSpec(a).inputSchema).toEqual(expected);
    expect(toolSpec(b)).toEqual({ name: 'b', description: 'B', inputSchema: expected });
  });
});
