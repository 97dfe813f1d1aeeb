import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { YamlError, parseYaml } from '../../../src/kit/yaml/parse-yaml.js';
import { yamlBomb } from '../../helpers/yaml-bomb.js';

describe('parseYaml', () => {
  it('an alias bomb is a YamlError at its first alias, not a ReferenceError without a position', () => {
    const e = (() => {
      try {
        parseYaml(yamlBomb('x'));
      } catch (err) {
        return err as YamlError;
      }
    })();
    expect(e).toBeInstanceOf(YamlError);
    expect([e!.line, e!.column, e!.message]).toEqual([
      2,
      9,
      'YAML aliases expand to too much data (more than 100 alias expansions; the first alias is here)',
    ]);
  });

  it('aliases within the cap are data; a syntax error names its line and column', () => {
    expect(parseYaml('base: &b {x: 1}\nuse: *b\n').value).toEqual({ base: { x: 1 }, use: { x: 1 } });
    expect(() => parseYaml('a: [1, 2\n')).toThrow(YamlError);
    expect(() => parseYaml('a: 1\na: 2\n')).toThrow(/^YAML syntax error: Map keys must be unique/);
  });

  it('any text gives data or a YamlError with a position inside the text (property)', () => {
    const piece = fc.constantFrom(
      'a',
      ': ',
      '&x ',
      '*x',
      '- ',
      '[',
      ']',
      '{',
      '}',
      '\n',
      '  ',
      '"',
      "'",
      '#',
      '<<: ',
      ',',
      '!!str ',
      '---\n',
      '|\n',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.array(piece, { maxLength: 30 }).map((p) => p.join('')),
        ),
        (text) => {
          try {
            parseYaml(text);
          } catch (err) {
            expect(err).toBeInstanceOf(YamlError);
            const { line, column } = err as YamlError;
            expect(line).toBeGreaterThanOrEqual(1);
            expect(line).toBeLessThanOrEqual(text.split('\n').length + 1);
            expect(column).toBeGreaterThanOrEqual(1);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
