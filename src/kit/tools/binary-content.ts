const SAMPLE = 8192;

/**
 * True when bytes look like a binary file rather than text: a NUL byte in the first 8 KB, or more than 30%
 * control characters there (tab, newline, carriage return, form feed, backspace and escape count as text).
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SAMPLE);
  if (n === 0) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 8 && b !== 27) control++;
  }
  return control / n > 0.3;
}
