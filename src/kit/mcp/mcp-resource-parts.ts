import { base64Size, type Attachment } from '../../core/index.js';
import { fileName } from './mcp-result.js';
import { formatMcpUri } from './mcp-uri.js';

/** One item of a `resources/read` result. */
export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** What one read resource becomes: files a model can take, and notes for what it cannot. */
export interface McpResourceParts {
  files: Attachment[];
  /** One line per content item that cannot be given to a model (e.g. audio, archives), naming it and its size. */
  notes: string[];
}

/** Binary types every provider qitos speaks to accepts in a message. */
const SENDABLE_BINARY = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

/**
 * Turns the contents of `resources/read` into file parts for a message: text becomes a text file (`data:` URL,
 * its own `text/*` or JSON type, else `text/plain`), images (PNG, JPEG, GIF, WebP) and PDFs stay files, and any
 * other binary becomes a note (its type and size), since a provider would reject the whole request for it.
 */
export function mcpResourceParts(server: string, contents: readonly McpResourceContents[]): McpResourceParts {
  const files: Attachment[] = [];
  const notes: string[] = [];
  for (const c of contents) {
    const name = fileName(c.uri);
    if (typeof c.text === 'string') {
      const mime =
        c.mimeType && (c.mimeType.startsWith('text/') || c.mimeType === 'application/json') ? c.mimeType : 'text/plain';
      files.push({ mime, url: `data:${mime};base64,${Buffer.from(c.text, 'utf8').toString('base64')}`, ...name });
    } else if (typeof c.blob === 'string') {
      const mime = c.mimeType ?? 'application/octet-stream';
      if (SENDABLE_BINARY.has(mime)) files.push({ mime, url: `data:${mime};base64,${c.blob}`, ...name });
      else
        notes.push(
          `${formatMcpUri({ server, uri: c.uri })} is ${mime} (${base64Size(c.blob)} bytes), which cannot be shown to the model`,
        );
    }
  }
  return { files, notes };
}
