/**
 * Text we did not write (tool and MCP output, model text, skill and ZIP entry names, trace values, error messages
 * that quote them), made safe to print on a terminal: every character a terminal would act on instead of showing
 * is shown as a visible escape, so the text cannot clear the screen, move the cursor, retitle the window, hide
 * itself or reorder what follows it.
 *
 * Escaped as `\uXXXX`: C0 controls (U+0000-U+001F, ESC among them) but tab, DEL, C1 controls (U+0080-U+009F,
 * CSI among them), and the bidirectional controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) that
 * make text display in another order than it reads. A newline is kept when `oneLine` is false (a CR before it
 * too, as CRLF); where one line is printed it is escaped like the rest, so the text cannot start a line of its own.
 */
export function terminalText(text: string, options: { oneLine?: boolean } = {}): string {
  const oneLine = options.oneLine ?? true;
  return text.replace(UNSAFE, (c, offset: number) => {
    if (!oneLine && (c === '\n' || (c === '\r' && text[offset + 1] === '\n'))) return c;
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** {@link terminalText} of the text, with newlines kept: for multi-line output such as a detail block. */
export function terminalBlock(text: string): string {
  return terminalText(text, { oneLine: false });
}

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
