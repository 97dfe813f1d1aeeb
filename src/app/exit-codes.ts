/** The command ran and its outcome is a failure (a failed run, a replay that differs), or an internal error. */
export const EXIT_FAILED = 1;
/** Bad input: usage, a missing or broken file or module, a missing peer dependency. Nothing ran. */
export const EXIT_BAD_INPUT = 2;
/** Interrupted (Ctrl-C). */
export const EXIT_INTERRUPTED = 130;
