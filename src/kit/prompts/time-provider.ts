import type { VariableProvider } from './variable-engine.js';

/** Options of the time provider. */
export interface TimeProviderOptions {
  /** IANA time zone (default: the process's zone). `{{date:Asia/Tokyo}}` picks another one per use. */
  timeZone?: string;
  /** Locale of `{{weekday}}` (default `en-US`). */
  locale?: string;
  /** The clock (default `() => new Date()`); tests pass a fixed one. */
  now?: () => Date;
}

const NAMES = new Set(['date', 'time', 'datetime', 'weekday', 'timezone', 'unix']);

/**
 * `{{date}}` (2025-01-31), `{{time}}` (14:05:09, 24 h), `{{datetime}}` (ISO 8601 with offset,
 * 2025-01-31T14:05:09+08:00), `{{weekday}}`, `{{timezone}}`, `{{unix}}` (seconds). All are computed in the
 * provider's time zone, or in the one given after a colon; an unknown zone is an error naming it.
 */
export function timeProvider(options: TimeProviderOptions = {}): VariableProvider {
  const zone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const locale = options.locale ?? 'en-US';
  const now = options.now ?? (() => new Date());
  // Intl formatters are costly to build: keep them per zone, per provider instance
  const formatters = new Map<string, { parts: Intl.DateTimeFormat; weekday: Intl.DateTimeFormat }>();
  const formatter = (tz: string) => {
    let f = formatters.get(tz);
    if (!f) {
      let parts: Intl.DateTimeFormat;
      try {
        parts = new Intl.DateTimeFormat('en-US', {
          timeZone: tz,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
          timeZoneName: 'longOffset',
        });
      } catch (err) {
        throw new Error(`unknown time zone "${tz}" (use an IANA name such as Europe/Paris)`, { cause: err });
      }
      try {
        f = { parts, weekday: new Intl.DateTimeFormat(locale, { timeZone: tz, weekday: 'long' }) };
      } catch (err) {
        throw new Error(`invalid locale "${locale}" (use a BCP 47 tag such as en-US or zh-CN)`, { cause: err });
      }
      formatters.set(tz, f);
    }
    return f;
  };
  return {
    name: 'time',
    resolve(name, arg) {
      if (!NAMES.has(name)) return undefined;
      const tz = arg?.trim() || zone;
      const t = now();
      if (name === 'unix') return Math.floor(t.getTime() / 1000);
      if (name === 'timezone') return formatter(tz).parts.resolvedOptions().timeZone;
      const f = formatter(tz);
      if (name === 'weekday') return f.weekday.format(t);
      const p: Record<string, string> = {};
      for (const part of f.parts.formatToParts(t)) p[part.type] = part.value;
      const date = `${p.year}-${p.month}-${p.day}`;
      const time = `${p.hour}:${p.minute}:${p.second}`;
      if (name === 'date') return date;
      if (name === 'time') return time;
      const offset = (p.timeZoneName ?? 'GMT').replace('GMT', '') || '+00:00';
      return `${date}T${time}${offset}`;
    },
  };
}
