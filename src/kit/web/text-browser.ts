import {
  fetchAllowed,
  fetchSettings,
  toolError,
  type FetchSettings,
  type WebFetchToolOptions,
} from '../tools/index.js';
import { pageText, type PageLink } from './page-text.js';

/** An open page: where it came from, its lines and links, and where the reader is. */
interface Page {
  url: string;
  title: string | undefined;
  lines: string[];
  links: PageLink[];
  lineLinks: number[][];
  /** First line shown (0-based). */
  top: number;
  find?: { text: string; line: number };
}

/** What the browser shows after a move: the page, the lines in view (1-based), and the links on them. */
export interface WebView {
  url: string;
  title: string | undefined;
  from: number;
  to: number;
  total: number;
  lines: string[];
  /** The links that appear on the lines in view. */
  links: PageLink[];
  /** The line a find landed on, and how many lines match. */
  match?: { line: number; count: number; text: string };
}

/** Options of a TextBrowser: web_fetch's (allow-list, limits) plus the view. */
export interface TextBrowserOptions extends Omit<WebFetchToolOptions, 'limits'> {
  /** Lines in one view (default 40). */
  pageLines?: number;
  /** Longer lines are wrapped (default 160 characters). */
  wrap?: number;
  /** Pages kept for `back` (default 20). */
  history?: number;
}

/**
 * A text browser over fetched pages: `open` a URL, `scroll`, `find` text, `follow` a numbered link, go `back`. It
 * fetches with web_fetch's rules (only allow-listed hosts, every redirect re-checked, size and time limits), shows a
 * window of numbered lines with links marked `text [n]`, and keeps a short history. The `web` op group of TextWebEnv.
 */
export class TextBrowser {
  private readonly settings: FetchSettings;
  private readonly pageLines: number;
  private readonly wrap: number;
  private readonly keep: number;
  private pages: Page[] = [];

  constructor(options: TextBrowserOptions) {
    this.settings = fetchSettings(options);
    this.pageLines = options.pageLines ?? 40;
    this.wrap = options.wrap ?? 160;
    this.keep = options.history ?? 20;
    if (!Number.isInteger(this.pageLines) || this.pageLines < 1)
      throw new Error(`pageLines must be a positive integer, got ${options.pageLines}`);
  }

  /** The allow-list as configured (for tool descriptions). */
  get allowedHosts(): string {
    return this.settings.allowedText;
  }

  /** Fetches a page and shows its first lines. */
  async open(url: string, signal: AbortSignal): Promise<WebView> {
    const fetched = await fetchAllowed(url, this.settings, signal);
    const text = pageText(fetched.body, fetched.mime, fetched.url, this.wrap);
    this.pages.push({
      url: fetched.url.href,
      title: text.title,
      lines: text.lines,
      links: text.links,
      lineLinks: text.lineLinks,
      top: 0,
    });
    if (this.pages.length > this.keep) this.pages.shift();
    return this.view();
  }

  /** Moves the view down or up by `lines` (default one view), or to a line (1-based). */
  scroll(move: { direction?: 'down' | 'up'; lines?: number; toLine?: number }): WebView {
    const p = this.page();
    const step = move.lines ?? this.pageLines;
    if (move.toLine !== undefined) p.top = move.toLine - 1;
    else p.top += move.direction === 'up' ? -step : step;
    p.top = Math.max(0, Math.min(p.top, Math.max(0, p.lines.length - this.pageLines)));
    return this.view();
  }

  /**
   * Finds text (case-insensitive) after the last match of the same text, or from the top of the view for new text,
   * wrapping to the start; the view moves to show the match near its top.
   */
  find(text: string): WebView {
    const p = this.page();
    const needle = text.toLowerCase();
    if (!needle.trim()) throw toolError('give the text to find');
    const hits = p.lines.flatMap((l, i) => (l.toLowerCase().includes(needle) ? [i] : []));
    if (!hits.length) throw toolError(`"${text}" is not on this page (${p.url}).`);
    const after = p.find?.text.toLowerCase() === needle ? p.find.line + 1 : p.top;
    const line = hits.find((i) => i >= after) ?? hits[0];
    p.find = { text, line };
    p.top = Math.max(0, Math.min(line - 2, Math.max(0, p.lines.length - this.pageLines)));
    return { ...this.view(), match: { line: line + 1, count: hits.length, text } };
  }

  /** Opens link `n` of the current page. */
  async follow(n: number, signal: AbortSignal): Promise<WebView> {
    const p = this.page();
    const link = p.links.find((l) => l.n === n);
    if (!link)
      throw toolError(
        `this page has no link [${n}]${p.links.length ? `; its links are [1] to [${p.links.length}]` : ': it has no links'}.`,
      );
    return this.open(link.url, signal);
  }

  /** Goes back to the page before, where the reader left it. */
  back(): WebView {
    if (this.pages.length < 2) throw toolError('there is no page to go back to.');
    this.pages.pop();
    return this.view();
  }

  /** Where the browser is, for the env's observation (null before the first page). */
  summary(): { url: string; title: string | null; line: number; lines: number } | null {
    const p = this.pages.at(-1);
    return p ? { url: p.url, title: p.title ?? null, line: p.top + 1, lines: p.lines.length } : null;
  }

  /** Forgets every page. */
  reset(): void {
    this.pages = [];
  }

  private page(): Page {
    const p = this.pages.at(-1);
    if (!p) throw toolError('no page is open: open a URL first.');
    return p;
  }

  private view(): WebView {
    const p = this.page();
    const lines = p.lines.slice(p.top, p.top + this.pageLines);
    const seen = new Set(p.lineLinks.slice(p.top, p.top + this.pageLines).flat());
    return {
      url: p.url,
      title: p.title,
      from: lines.length ? p.top + 1 : 0,
      to: p.top + lines.length,
      total: p.lines.length,
      lines,
      links: p.links.filter((l) => seen.has(l.n)),
    };
  }
}

/** A view as the model reads it: where it is, the numbered lines, and where the links in view lead. */
export function renderView(v: WebView): string {
  const head = [`URL: ${v.url}`, ...(v.title ? [`Title: ${v.title}`] : [])];
  if (v.match)
    head.push(
      `Found "${v.match.text}" on line ${v.match.line} (${v.match.count} matching ` +
        `line${v.match.count === 1 ? '' : 's'}; find it again for the next).`,
    );
  const where =
    v.total === 0
      ? 'The page is empty.'
      : `Lines ${v.from}-${v.to} of ${v.total}${v.to < v.total ? ' (scroll down for more)' : ' (end of page)'}.`;
  const width = String(v.to).length;
  const body = v.lines.map((l, i) => `${String(v.from + i).padStart(width)}  ${l}`).join('\n');
  const links = v.links.length
    ? `\n\nLinks in view (follow one with its number):\n${v.links.map((l) => `[${l.n}] ${l.text} -> ${l.url}`).join('\n')}`
    : '';
  return `${head.join('\n')}\n${where}\n\n${body}${links}`;
}
