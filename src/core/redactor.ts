/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not redacted: a value of a few characters ("1", "true", "dev") also occurs in
 * text that has nothing to do with it, so replacing it would mangle tool output and traces, and would point at
 * the secret by every place it cut; a value that short is no secret worth the name anyway.
 */
export const MIN_SECRET_LENGTH = 6;

/**
 * The secret values of one run (API keys it uses, expanded `${VAR}`s, a server's token), and the one place text
 * is cleaned of them before it enters a record: the trace writer, the event stream, the CLI's log lines and the
 * server's answers each pass what they write through the run's Redactor.
 *
 * Every occurrence of every secret, also where secrets overlap or touch, becomes {@link REDACTED}; a secret also
 * counts in its JSON-escaped spelling (a quote or a backslash in it), so JSON text can be cleaned as text, and it
 * stays JSON: a secret found inside an escape sequence (`\n`, `\u00e9`) takes the whole sequence with it.
 */
export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(values: Iterable<string | undefined> = []) {
    this.add(...values);
  }

  /** Adds secret values (undefined, and values shorter than {@link MIN_SECRET_LENGTH}, are left out). */
  add(...values: Array<string | undefined>): this {
    for (const v of values) {
      // A value inside the marker itself could never be removed (it would reappear with every replacement).
      if (v === undefined || v.length < MIN_SECRET_LENGTH || REDACTED.includes(v)) continue;
      this.secrets.add(v);
      const escaped = JSON.stringify(v).slice(1, -1);
      if (escaped !== v) this.secrets.add(escaped);
    }
    return this;
  }

  /** How many spellings of secrets it holds (0: it changes nothing). */
  get size(): number {
    return this.secrets.size;
  }

  /** True when `text` holds a secret. */
  finds(text: string): boolean {
    for (const s of this.secrets) if (text.includes(s)) return true;
    return false;
  }

  /** `text` with every secret in it replaced by {@link REDACTED}. */
  redact(text: string): string {
    if (this.secrets.size === 0) return text;
    // Covered characters are marked, and each run of them becomes one marker; repeated because a marker next to
    // plain text could spell a secret again. Each round removes at least one plain character, so it ends.
    let out = text;
    for (;;) {
      const covered = new Uint8Array(out.length);
      let found = false;
      for (const s of this.secrets) {
        for (let i = out.indexOf(s); i !== -1; i = out.indexOf(s, i + 1)) {
          covered.fill(1, i, i + s.length);
          found = true;
        }
      }
      if (!found) return out;
      for (let i = 0; i < out.length; i++)
        if (covered[i] && (i === 0 || !covered[i - 1])) covered.fill(1, escapeStart(out, i), i);
      let next = '';
      for (let i = 0; i < out.length;) {
        if (!covered[i]) next += out[i++];
        else {
          while (i < out.length && covered[i]) i++;
          next += REDACTED;
        }
      }
      out = next;
    }
  }

  /**
   * For text that arrives in pieces (a model's deltas): the redacted part of `text` that can be passed on now, and
   * the raw rest to hold until more arrives, which is the shortest tail that could still be the start of a secret
   * (or lies in one). Keep `hold`, prepend it to the next piece, and at the end pass `redact(hold)` on.
   */
  splitStream(text: string): { ready: string; hold: string } {
    if (this.secrets.size === 0) return { ready: text, hold: '' };
    let cut = text.length;
    for (const s of this.secrets) {
      for (let k = Math.min(s.length - 1, text.length); k > 0; k--) {
        if (text.length - k < cut && text.endsWith(s.slice(0, k))) {
          cut = text.length - k;
          break;
        }
      }
    }
    // Never cut inside a secret that is already whole: hold all of it.
    for (let moved = true; moved;) {
      moved = false;
      for (const s of this.secrets) {
        for (let i = text.indexOf(s); i !== -1 && i < cut; i = text.indexOf(s, i + 1)) {
          if (i + s.length > cut) {
            cut = i;
            moved = true;
          }
        }
      }
    }
    return { ready: this.redact(text.slice(0, cut)), hold: text.slice(cut) };
  }

  /** A copy of `value` (JSON data: strings, arrays, plain objects) with every string and key redacted; itself when it holds no secret. */
  redactValue<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    const text = JSON.stringify(value);
    if (text === undefined || !this.finds(text)) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === 'object') {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        const json = (value as { toJSON?: () => unknown }).toJSON;
        return typeof json === 'function' ? this.walk(json.call(value)) : value;
      }
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value))
        Object.defineProperty(out, this.redact(k), {
          value: this.walk(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
    return value;
  }
}

/** Where the JSON escape sequence that `i` is inside of starts (`\x`, `\uXXXX`), or `i` when it is in none. */
function escapeStart(text: string, i: number): number {
  for (let k = 1; k <= 5 && i - k >= 0; k++) {
    const p = i - k;
    if (text[p] !== '\\') continue;
    let run = 1;
    while (p - run >= 0 && text[p - run] === '\\') run++;
    if (run % 2 === 0) return i; // an escaped backslash, not an escape's start
    if (k === 1) return p;
    return text[p + 1] === 'u' && /^[0-9a-fA-F]*$/.test(text.slice(p + 2, i)) ? p : i;
  }
  return i;
}
