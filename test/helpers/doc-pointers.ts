import { posix } from 'node:path';

/**
 * The files a shipped doc points its reader at, as paths from the package root: the targets of its relative
 * Markdown links (resolved against the doc's folder, without the #anchor), and every `examples/...`,
 * `benchmarks/...` path and `docs/....md` page it names (also as `node_modules/qitos-ts/<path>`). A path ending in `/` is a
 * folder. Absolute URLs, anchors within the page and paths inside other folders (`flows/x.yaml`) are not pointers.
 */
export function docPointers(doc: string, text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    found.add(posix.normalize(posix.join(posix.dirname(doc), target.replace(/#.*$/, ''))));
  }
  const named = /(?:^|[^\w./-]|node_modules\/qitos-ts\/)((?:examples|benchmarks)\/[\w./-]*|docs\/[\w./-]*\.md\b)/g;
  for (const m of text.matchAll(named)) found.add(m[1]!.replace(/\.+$/, ''));
  return [...found];
}

/** Whether `pointer` (a file, or a folder ending in `/` or not) is among `files` or holds one of them. */
export function isPacked(pointer: string, files: readonly string[]): boolean {
  const p = pointer.replace(/\/$/, '');
  return files.some((f) => f === p || f.startsWith(`${p}/`));
}
