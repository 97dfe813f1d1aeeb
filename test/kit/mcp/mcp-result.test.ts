import { describe, expect, it } from 'vitest';
import { mcpErrorText, mcpResourceParts, mcpToolOutput } from '../../../src/kit/mcp/index.js';

describe('what MCP content becomes', () => {
  it('tool results: text joined, images and audio as files, embedded resources as text or files, links as mcp:// lines', () => {
    const out = mcpToolOutput('docs', [
      { type: 'text', text: 'first' },
      { type: 'image', data: 'iVBO', mimeType: 'image/png' },
      { type: 'audio', data: 'UklG', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a/notes.txt', mimeType: 'text/plain', text: 'embedded' } },
      { type: 'resource', resource: { uri: 'file:///a/data.bin', blob: 'AAEC' } },
      { type: 'resource_link', uri: 'file:///a/big.csv', name: 'big', mimeType: 'text/csv' },
      { type: 'unknown-future-type' },
    ]);
    expect(out.output).toBe('first\nembedded\n[resource] mcp://docs/file:///a/big.csv (big, text/csv)');
    expect(out.attachments).toEqual([
      { mime: 'image/png', url: 'data:image/png;base64,iVBO' },
      { mime: 'audio/wav', url: 'data:audio/wav;base64,UklG' },
      { mime: 'application/octet-stream', url: 'data:application/octet-stream;base64,AAEC', filename: 'data.bin' },
    ]);
  });

  it('structured content stands in for missing text; files alone are counted', () => {
    expect(mcpToolOutput('s', [], { t: 1 })).toEqual({ output: '{"t":1}' });
    expect(mcpToolOutput('s', [{ type: 'image', data: 'x', mimeType: 'image/gif' }]).output).toBe('(1 attachment)');
    expect(mcpToolOutput('s', [])).toEqual({ output: '' });
    expect(
      mcpErrorText([
        { type: 'text', text: 'a' },
        { type: 'image', data: 'x' },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('a\nb');
  });

  it('resources for a message: text as text files, images and PDFs as files, other binaries as notes', () => {
    const r = mcpResourceParts('docs', [
      { uri: 'file:///guide.md', mimeType: 'text/markdown', text: 'héllo' },
      { uri: 'file:///conf.yaml', mimeType: 'application/yaml', text: 'a: 1' },
      { uri: 'file:///p.png', mimeType: 'image/png', blob: 'iVBO' },
      { uri: 'file:///doc.pdf', mimeType: 'application/pdf', blob: 'JVBE' },
      { uri: 'file:///x.gz', mimeType: 'application/gzip', blob: 'H4sIAAAA' },
    ]);
    expect(r.files).toEqual([
      {
        mime: 'text/markdown',
        url: `data:text/markdown;base64,${Buffer.from('héllo').toString('base64')}`,
        filename: 'guide.md',
      },
      {
        mime: 'text/plain',
        url: `data:text/plain;base64,${Buffer.from('a: 1').toString('base64')}`,
        filename: 'conf.yaml',
      },
      { mime: 'image/png', url: 'data:image/png;base64,iVBO', filename: 'p.png' },
      { mime: 'application/pdf', url: 'data:application/pdf;base64,JVBE', filename: 'doc.pdf' },
    ]);
    expect(r.notes).toEqual([
      'mcp://docs/file:///x.gz is application/gzip (6 bytes), which cannot be shown to the model',
    ]);
  });
});
