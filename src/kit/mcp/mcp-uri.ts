/** A reference to a resource of a configured server: `mcp://<server>/<uri>`. */
export interface McpResourceRef {
  server: string;
  /** The server's own resource URI, e.g. `file:///notes.txt` or `demo://resource/static/document/a.md`. */
  uri: string;
}

const PREFIX = 'mcp://';
const SERVER = /^[A-Za-z0-9_-]{1,40}$/;
// In running text a reference ends at whitespace, a quote, a backtick or an angle bracket.
const IN_TEXT = /mcp:\/\/([A-Za-z0-9_-]{1,40})\/([^\s"'`<>]+)/g;
// Sentence punctuation right after a reference is not part of it ("read mcp://fs/file:///a.txt.").
const TRAILING = /[.,;:!?)\]}]+$/;

/** `mcp://<server>/<uri>` for a server and one of its resource URIs. */
export function formatMcpUri(ref: McpResourceRef): string {
  return `${PREFIX}${ref.server}/${ref.uri}`;
}

/** Parses `mcp://<server>/<uri>`; throws an Error that shows the expected form. */
export function parseMcpUri(text: string): McpResourceRef {
  const bad = (why: string) =>
    new Error(
      `not an MCP resource reference: ${JSON.stringify(text.slice(0, 200))}: ${why}; expected ` +
        `mcp://<server>/<resource uri>, e.g. mcp://docs/file:///guide.md`,
    );
  if (!text.startsWith(PREFIX)) throw bad('it does not start with mcp://');
  const rest = text.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash < 0) throw bad('no "/" after the server name');
  const server = rest.slice(0, slash);
  const uri = rest.slice(slash + 1);
  if (!SERVER.test(server)) throw bad(`"${server}" is not a server name`);
  if (!uri) throw bad('the resource uri is empty');
  return { server, uri };
}

/** Every `mcp://<server>/<uri>` in running text, in order, each once; trailing sentence punctuation is dropped. */
export function findMcpUris(text: string): McpResourceRef[] {
  const out: McpResourceRef[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(IN_TEXT)) {
    const uri = m[2].replace(TRAILING, '');
    if (!uri) continue;
    const key = `${m[1]}/${uri}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ server: m[1], uri });
  }
  return out;
}
