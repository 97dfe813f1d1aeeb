/**
 * One command a shell command line runs, as permission rules judge it (docs/permissions.md, "Commands"): a simple
 * command at any depth (inside a substitution, a subshell, a group, a loop, a function body, a pipeline, a
 * wrapper such as `env` or `sudo`, a `bash -c` string), normalised the way the shell will see it.
 */
export interface ShellCommand {
  /**
   * The command as it runs: quotes and escapes removed, leading assignments dropped, the program by its basename,
   * words joined by one space (`\rm  "x"` is `rm x`). A part known only when it runs is shown as written (`$CMD x`).
   */
  text: string;
  /**
   * Set when part of the command is known only when it runs (a variable, a substitution, a glob, the arguments
   * `xargs` adds): the text as pieces, `null` where any text may stand (`$CMD x` is `[null, " x"]`).
   */
  shape?: readonly (string | null)[];
  /** Why part of it is known only when it runs (shown in an ask and in a refusal). */
  unknown?: string;
  /** Set when the command line cannot be judged at all (too long, nested too deep): the reason it is refused. */
  refused?: string;
}

/** A shape that stands for any command: what cannot be known before it runs at all (`eval "$x"`, `source f`). */
export const ANY_COMMAND: readonly (string | null)[] = [null];
