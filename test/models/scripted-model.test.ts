import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../src/core/index.js';
import { ScriptedModel } from '../../src/models/index.js';

describe('ScriptedModel options', () => {
  it('streams text in chunks of chunkSize that join back to the reply', async () => {
    const m = new ScriptedModel(['Thought: a\nFinal Answer: 42'], { chunkSize: 4 });
    const deltas: string[] = [];
    const r = await m.generate(
      { messages: [] },
      { onEvent: (e: ModelStreamEvent) => void (e.type === 'text-delta' && deltas.push(e.delta)) },
    );
    expect(deltas.length).toBe(Math.ceil(r.parts[0].type === 'text' ? r.parts[0].text.length / 4 : 0));
    expect(deltas.every((d) => d.length <= 4)).toBe(true);
    expect(deltas.join('')).toBe('Thought: a\nFinal Answer: 42');
  });

  it('rejects a chunkSize that is not a positive integer (a negative one would never end the stream)', () => {
    for (const chunkSize of [0, -1, 1.5, Number.NaN])
      expect(() => new ScriptedModel(['x'], { chunkSize })).toThrow(
        /ScriptedModel: chunkSize must be a positive integer/,
      );
    expect(() => new ScriptedModel('Final Answer: 1' as never)).toThrow(
      /the script must be an array of replies, got string/,
    );
  });
});
