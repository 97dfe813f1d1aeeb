// Latin-1 names for U+00A0..U+00FF, in code point order.
const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg ' +
  'plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 ' +
  'iquest ' +
  'Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave ' +
  'Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute ' +
  'Ucirc Uuml Yacute THORN szlig ' +
  'agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave ' +
  'iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ' +
  'ucirc uuml yacute thorn yuml';

const NAMED: Readonly<Record<string, string>> = {
  ...Object.fromEntries(LATIN1.split(' ').map((name, i) => [name, String.fromCodePoint(0xa0 + i)])),
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  trade: '™',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  euro: '€',
};

/** Decodes HTML character references: named (common ones), decimal and hex. Unknown names stay as they are. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : m;
    }
    return NAMED[ref] ?? NAMED[ref.toLowerCase()] ?? m;
  });
}

/** The `<title>` of an HTML document, if any. */
export function htmlTitle(html: string): string | undefined {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const t = m ? decodeEntities(m[1]).replace(/\s+/g, ' ').trim() : '';
  return t || undefined;
}

/** HTML without comments and the elements a reader never sees (scripts, styles, head, embedded objects). */
export function stripNonContent(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|noscript|template|svg|head|iframe|object|canvas)\b[\s\S]*?<\/\1\s*>/gi, '');
}

const BLOCK =
  'address|article|aside|blockquote|body|dd|details|div|dl|dt|fieldset|figcaption|figure|footer|form|header|hr|html|main|nav|ol|p|section|summary|table|tbody|thead|tfoot|tr|ul';

/**
 * HTML to readable plain text: scripts, styles and other non-content elements dropped; headings, list
 * items, paragraphs and line breaks kept as lines (`# ` headings, `- ` items); links as `text (url)`;
 * `<pre>` kept verbatim; entities decoded; runs of blank lines and spaces collapsed. Not a browser: it
 * reads the markup, it does not run it.
 */
export function htmlToText(html: string): string {
  const pres: string[] = [];
  let s = stripNonContent(html)
    .replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_m, body: string) => {
      pres.push(decodeEntities(body.replace(/<[^>]+>/g, '')));
      return `\n\u0000PRE${pres.length - 1}\u0000\n`;
    })
    .replace(
      /<a\b[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (_m, a: string, b: string, c: string, text: string) => {
        const href = decodeEntities(a ?? b ?? c ?? '');
        const label = text.replace(/<[^>]+>/g, '').trim();
        return /^https?:/i.test(href) && label && decodeEntities(label) !== href ? `${label} (${href})` : label;
      },
    )
    .replace(/<h([1-6])\b[^>]*>/gi, (_m, n: string) => `\n\n${'#'.repeat(Number(n))} `)
    .replace(/<\/h[1-6]\s*>/gi, '\n\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(td|th)\b[^>]*>/gi, ' ')
    .replace(new RegExp(`</?(?:${BLOCK})\\b[^>]*>`, 'gi'), '\n')
    .replace(/<[^>]+>/g, '');
  s = decodeEntities(s)
    .split('\n')
    .map((l) => l.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  // eslint-disable-next-line no-control-regex -- NUL marks the placeholders of <pre> blocks (never in HTML text)
  return s.replace(/\u0000PRE(\d+)\u0000/g, (_m, i: string) => pres[Number(i)].replace(/^\n+|\n+$/g, ''));
}
