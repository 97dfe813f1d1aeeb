import type { MemoryRecord } from '../../core/index.js';

/**
 * The notes file of {@link markdownMemory}: one `## role (step N)` heading per record, its content below, a blank
 * line after. Content lines that would read as a heading (or start with the escape) get a `\` in front, so any
 * text round-trips, carriage returns included (records are written with LF line ends, so a CR in the file is the
 * content's own; a file saved with CRLF line ends, whose title or first line ends in CR, is read as CRLF). A heading
 * written by hand in another shape (`## Deployment`) starts a record whose role is
 * the heading's text, at step 0; text before the first heading is a record of role `note`.
 */
export const NOTES_TITLE = '# Agent memory';

const HEADING = /^## (.*?)(?: \(step (\d+)\))?$/;

/** One record as its block in the notes file. */
export function formatNote(r: MemoryRecord): string {
  const role = r.role.replace(/\s+/g, ' ').trim() || 'note';
  const body = r.content
    .split('\n')
    .map((line) => (line.startsWith('#') || line.startsWith('\\') ? `\\${line}` : line))
    .join('\n');
  return `## ${role} (step ${r.step})\n${body}\n\n`;
}

/** The records of a notes file, in file order. */
export function parseNotes(text: string): MemoryRecord[] {
  const records: MemoryRecord[] = [];
  let current: { role: string; step: number; lines: string[] } | undefined;
  const flush = () => {
    if (!current) return;
    const lines = current.lines;
    // The blank separator line after each block is not content.
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    const content = lines.join('\n');
    if (content.trim() || current.role !== 'note') records.push({ step: current.step, role: current.role, content });
  };
  let lines = text.split('\n');
  if (lines[0].endsWith('\r')) lines = lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  // The file's final newline ends its last line; it does not start another.
  if (lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines) {
    if (raw === NOTES_TITLE && !current) continue;
    const m = raw.startsWith('## ') ? HEADING.exec(raw) : null;
    if (m) {
      flush();
      current = { role: m[1].trim() || 'note', step: m[2] ? Number(m[2]) : 0, lines: [] };
      continue;
    }
    current ??= { role: 'note', step: 0, lines: [] };
    current.lines.push(raw.startsWith('\\') ? raw.slice(1) : raw);
  }
  flush();
  return records;
}
