import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Writes one benchmark's `section` into docs/performance.md: it replaces the section with the same `## ` heading
 * (its first line), keeping a blank line before the next section, or is appended when there is none yet.
 * Other benchmarks' sections are left as they are. Prints where it wrote.
 */
export function writePerformanceSection(section: string): void {
  const heading = section.slice(0, section.indexOf('\n'));
  if (!heading.startsWith('## ')) throw new Error(`a performance section must start with a "## " heading line, got: ${JSON.stringify(heading)}`);
  const doc = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));
  let text = '';
  try {
    text = readFileSync(doc, 'utf8');
  } catch {
    text = '# Performance\n\n';
  }
  const start = text.indexOf(`\n${heading}\n`);
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start + 1) + section + (next >= 0 ? `\n${text.slice(next + 1)}` : '');
  } else {
    text = `${text.replace(/\n*$/, '\n\n')}${section}`;
  }
  writeFileSync(doc, text);
  console.log(`wrote ${doc} (${heading})`);
}
