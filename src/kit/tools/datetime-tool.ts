import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { toolError } from './tool-env.js';

/** Options of the datetime tool. */
export interface DatetimeToolOptions {
  /** The clock (default `() => new Date()`); fixed in tests and reproducible runs. */
  now?: () => Date;
  /** Time zone when the call names none (default the host's). */
  timeZone?: string;
}

/** Wall-clock parts of an instant in a time zone, and the zone's UTC offset then (e.g. `+05:30`). */
export function zonedParts(
  date: Date,
  timeZone: string,
): { iso: string; weekday: string; offset: string; zoneName: string } {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    weekday: 'long',
    timeZoneName: 'longOffset',
  });
  const p: Record<string, string> = {};
  for (const part of fmt.formatToParts(date)) p[part.type] = part.value;
  const gmt = p.timeZoneName ?? 'GMT';
  const offset = gmt === 'GMT' ? '+00:00' : gmt.replace(/^GMT/, '');
  const iso = `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset}`;
  const zoneName =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'long' })
      .formatToParts(date)
      .find((x) => x.type === 'timeZoneName')?.value ?? timeZone;
  return { iso, weekday: p.weekday, offset, zoneName };
}

/** `datetime`: the current date and time in a time zone (IANA name), with weekday, offset and Unix time. */
export function datetimeTool(options: DatetimeToolOptions = {}) {
  const now = options.now ?? (() => new Date());
  const hostZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  return defineTool({
    id: 'datetime',
    description:
      `Get the current date and time, in a time zone given by its IANA name (e.g. ` +
      `"Europe/Paris", "Asia/Shanghai", "UTC"; default ${hostZone}).`,
    parameters: z.object({
      timezone: z.string().min(1).optional().describe(`IANA time zone name (default ${hostZone}).`),
    }),
    execute(args) {
      const zone = args.timezone ?? hostZone;
      const date = now();
      let parts: ReturnType<typeof zonedParts>;
      try {
        parts = zonedParts(date, zone);
      } catch (err) {
        if (err instanceof RangeError)
          throw toolError(
            `unknown time zone "${zone}": use an IANA name such as "UTC", "America/New_York" or "Asia/Tokyo".`,
          );
        throw err;
      }
      const unix = Math.floor(date.getTime() / 1000);
      return {
        output:
          `${parts.iso} (${parts.weekday}) in ${zone} (${parts.zoneName}, ` +
          `UTC${parts.offset})\nUTC: ${date.toISOString()}\nUnix time: ${unix}`,
        title: parts.iso,
        metadata: { iso: parts.iso, timezone: zone, utc: date.toISOString(), unix },
      };
    },
  });
}
