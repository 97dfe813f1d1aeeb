import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Prints one benchmark's `section` and, when the benchmark was run with `--write`, writes it into
 * docs/performance.md: it replaces the section with the same `## ` heading (its first line), keeping a blank line
 * before the next section, or is appended when there is none yet. Other benchmarks' sections are left as they are.
 * Without `--write` a run leaves the tree clean: figures of a busy or different machine do not land in the docs by
 * accident. Older figures worth keeping go to benchmarks/perf/README.md (the history), by hand.
 */
export function writePerformanceSection(
  section: string,
  {
    argv = process.argv,
    doc = fileURLToPath(new URL('../../docs/performance.md', import.meta.url)),
  }: { argv?: readonly string[]; doc?: string } = {},
): void {
  const heading = section.slice(0, section.indexOf('\n'));
  if (!heading.startsWith('## '))
    throw new Error(`a performance section must start with a "## " heading line, got: ${JSON.stringify(heading)}`);
  if (!argv.includes('--write')) {
    console.log(
      `\n${section}\n(docs/performance.md not changed: run with --write to record these figures there, e.g. npm run bench:x -- --write)`,
    );
    return;
  }
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
