import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  WorkflowDefinition,
  checkWorkflow,
  renderParameters,
  renderTemplate,
} from '../../../src/kit/workflow/index.js';

const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);

describe('templates', () => {
  it('text without placeholders renders unchanged; a placeholder renders its string or JSON value', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('{{')),
        name,
        fc.jsonValue(),
        (text, key, value) => {
          expect(renderTemplate(text, {}, 'n')).toBe(text);
          const expected = typeof value === 'string' ? value : JSON.stringify(value);
          expect(renderTemplate(`${text}{{ ${key} }}${text}`, { [key]: value }, 'n')).toBe(`${text}${expected}${text}`);
          expect(renderParameters({ a: [`{{${key}}}`] }, { [key]: value }, 'n')).toEqual({ a: [value] });
        },
      ),
    );
  });

  it('a missing variable names the node and the variable', () => {
    expect(() => renderTemplate('hi {{who.name}}', { who: {} }, 'greet')).toThrow(
      'node "greet": {{who.name}}: there is no variable "who.name"',
    );
  });
});

describe('the checker on random graphs', () => {
  /** start -> t0 -> ... -> t(n-1) -> end, plus `extra` edges from a later node back to an earlier one. */
  const chain = (n: number) => ({
    nodes: [
      { kind: 'start', id: 's' },
      ...Array.from({ length: n }, (_, i) => ({ kind: 'tool', id: `t${i}`, toolName: 'x' })),
      { kind: 'end', id: 'e' },
    ],
    edges: ['s', ...Array.from({ length: n }, (_, i) => `t${i}`), 'e']
      .slice(0, -1)
      .map((from, i, all) => ({ from, to: i + 1 < all.length ? all[i + 1] : 'e' })),
  });

  it('accepts every chain, and refuses it once an edge points back (a loop without a bound)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), fc.nat(), (n, a, b) => {
        const ok = chain(n);
        expect(() => WorkflowDefinition.create(ok)).not.toThrow();
        // turn t(j) into a condition whose else goes back to t(i <= j)
        const j = a % n;
        const i = b % (j + 1);
        const next = j + 1 < n ? `t${j + 1}` : 'e';
        const looped = {
          nodes: ok.nodes.map((x) =>
            x.id === `t${j}` ? { kind: 'condition', id: x.id, expression: 'true', then: next, else: `t${i}` } : x,
          ),
          edges: ok.edges.filter((e) => e.from !== `t${j}`),
        };
        const problems = checkWorkflow(WorkflowDefinition.unchecked(looped)).map((p) => p.message);
        expect(problems.some((p) => p.includes('form a loop without a bound'))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
