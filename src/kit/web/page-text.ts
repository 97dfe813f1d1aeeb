import { decodeEntities, htmlTitle, htmlToText, stripNonContent } from '../tools/index.js';

/** A link of a page, numbered in reading order. */
export interface PageLink {
  n: number;
  url: string;
  text: string;
}

/** A page as the text browser shows it: lines of text with `[n]` after each link, and the links. */
export interface PageText {
  title: string | undefined;
  lines: string[];
  links: PageLink[];
  /** For each line, the numbers of the links on it (a literal "[3]" in the text is not one). */
  lineLinks: number[][];
}

// Private-use characters bracket a link number while the text is converted and wrapped, so the numbers found on a
// line afterwards are the links' and never text that happens to read "[3]".
const OPEN = '\uE000';
const CLOSE = '\uE001';
const MARK = /\uE000(\d+)\uE001/g;

const ANCHOR = /<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;

/**
 * Turns a page into numbered lines: HTML through htmlToText with every followable link (http or https, after
 * resolving it against the page URL and any `<base href>`) marked `text [n]`, one line per block, no blank lines;
 * other text split into lines. Lines longer than `wrap` characters are wrapped at spaces.
 */
export function pageText(body: string, mime: string, pageUrl: URL, wrap = 160): PageText {
  const isHtml = mime.includes('html') || (!mime && /^\s*<(!doctype html|html)/i.test(body));
  const clean = body.replace(/[\uE000\uE001]/g, '');
  if (!isHtml) {
    const lines = wrapLines(clean.replace(/\r\n?/g, '\n').split('\n'), wrap);
    return { title: undefined, lines, links: [], lineLinks: lines.map(() => []) };
  }
  const baseHref = /<base\b[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(clean);
  let base = pageUrl;
  if (baseHref) {
    try {
      base = new URL(decodeEntities(baseHref[1] ?? baseHref[2] ?? baseHref[3] ?? ''), pageUrl);
    } catch {
      // An unparsable <base href> is ignored, as browsers do: links resolve against the page URL.
    }
  }
  const links: PageLink[] = [];
  const byUrl = new Map<string, number>();
  // The title first (stripping removes <head>), then links numbered only where a reader can see them.
  const title = htmlTitle(clean);
  const marked = stripNonContent(clean).replace(ANCHOR, (_m, attrs: string, inner: string) => {
    const label = decodeEntities(inner.replace(/<[^>]+>/g, ' '))
      .replace(/\s+/g, ' ')
      .trim();
    const h = HREF.exec(attrs);
    const url = h ? resolveLink(decodeEntities(h[1] ?? h[2] ?? h[3] ?? ''), base, pageUrl) : undefined;
    if (!url) return inner;
    // The same target keeps its number, so a menu repeated in header and footer does not double the list.
    let n = byUrl.get(url);
    if (n === undefined) {
      n = links.length + 1;
      links.push({ n, url, text: label || url });
      byUrl.set(url, n);
    }
    return `${escapeText(label || url)}${OPEN}${n}${CLOSE}`;
  });
  // Every block of a page is a line of its own already; blank lines between them would only halve a view.
  const markedLines = wrapLines(htmlToText(marked).split('\n'), wrap).filter((l) => l.trim() !== '');
  return {
    title,
    // (a hard wrap inside a marker would leave a stray bracket character: dropped)
    lines: markedLines.map((l) => l.replace(MARK, ' [$1]').replace(/[\uE000\uE001]/g, '')),
    links,
    lineLinks: markedLines.map((l) => [...l.matchAll(MARK)].map((m) => Number(m[1]))),
  };
}

/** An absolute http(s) URL for an href, or undefined for what a text browser cannot follow (other schemes, same-page anchors). */
function resolveLink(href: string, base: URL, page: URL): string | undefined {
  const h = href.trim();
  if (!h || h.startsWith('#')) return undefined;
  let u: URL;
  try {
    u = new URL(h, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  u.hash = '';
  return u.href === new URL(page.href.split('#')[0]).href ? undefined : u.href;
}

/** Text put back into HTML before htmlToText: `<` and `&` kept as text, not read as markup. */
function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function wrapLines(lines: string[], width: number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.length <= width) {
      out.push(line);
      continue;
    }
    let rest = line;
    while (rest.length > width) {
      const cut = rest.lastIndexOf(' ', width);
      const at = cut > width / 2 ? cut : width;
      out.push(rest.slice(0, at).trimEnd());
      rest = rest.slice(at).trimStart();
    }
    if (rest) out.push(rest);
  }
  // Runs of blank lines say nothing to a reader scrolling by lines.
  return out.filter((l, i) => l.trim() !== '' || (i > 0 && out[i - 1].trim() !== ''));
}
