import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMcpUris, formatMcpUri, parseMcpUri } from '../../../src/kit/mcp/index.js';

const server = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
// a resource URI as servers write them: no whitespace, quotes or angle brackets, not ending in sentence punctuation
const uri = fc
  .string({ unit: fc.constantFrom(...'abcXYZ019:/._-~%?#=&@!$()[]{};,+*'.split('')), minLength: 1, maxLength: 40 })
  .filter((u) => !/[.,;:!?)\]}]$/.test(u));

describe('mcp:// references', () => {
  it('parse(format(ref)) gives the reference back', () => {
    fc.assert(
      fc.property(
        server,
        uri,
        (s, u) => void expect(parseMcpUri(formatMcpUri({ server: s, uri: u }))).toEqual({ server: s, uri: u }),
      ),
    );
  });

  it('finds references in running text, with sentence punctuation and quotes around them', () => {
    const around = fc.constantFrom(
      ['', ''],
      ['see ', '.'],
      ['(', ')'],
      ['"', '"'],
      ['`', '`'],
      ['<', '>'],
      ['read ', ', then answer'],
      ['', '?\n'],
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(server, uri, around), { minLength: 1, maxLength: 4 }), (refs) => {
        const u = refs.filter(([, v]) => !/["'`<>]/.test(v));
        const text = u.map(([s, v, [a, b]]) => `${a}${formatMcpUri({ server: s, uri: v })}${b}`).join(' ');
        const expected = [...new Map(u.map(([s, v]) => [`${s}/${v}`, { server: s, uri: v }])).values()];
        expect(findMcpUris(text)).toEqual(expected);
      }),
    );
  });

  it('rejects what is not a reference with an error showing the expected form', () => {
    expect(() => parseMcpUri('file:///a')).toThrow(
      /does not start with mcp:\/\/; expected mcp:\/\/<server>\/<resource uri>/,
    );
    expect(() => parseMcpUri('mcp://docs')).toThrow(/no "\/" after the server name/);
    expect(() => parseMcpUri('mcp://do cs/x')).toThrow(/"do cs" is not a server name/);
    expect(() => parseMcpUri('mcp://docs/')).toThrow(/the resource uri is empty/);
    expect(findMcpUris('no references here, not even mcp:// or mcp://x')).toEqual([]);
  });
});
