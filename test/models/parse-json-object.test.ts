import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/models/index.js';
import { parseJsonObject } from '../../src/models/parse-json-object.js';

describe('parseJsonObject / parseArgs', () => {
  it('reads back any JSON object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (o) => {
        expect(parseJsonObject(JSON.stringify(o))).toEqual(JSON.parse(JSON.stringify(o)));
        expect(parseArgs(JSON.stringify(o))).toEqual(JSON.parse(JSON.stringify(o)));
      }),
    );
  });

  it('gives undefined for arrays, scalars, null and malformed text', () => {
    for (const text of ['[1]', '"s"', '3', 'null', 'true', '{"a":', '{a:1}', 'x']) {
      expect(parseJsonObject(text)).toBeUndefined();
      expect(parseArgs(text)).toBeUndefined();
    }
  });

  it('empty text: no object for parseJsonObject, no arguments ({}) for a streamed tool call', () => {
    for (const text of ['', '  \n']) {
      expect(parseJsonObject(text)).toBeUndefined();
      expect(parseArgs(text)).toEqual({});
    }
  });
});
