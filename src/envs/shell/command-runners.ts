import { holeWord, literal, shown, textWord, type Word } from './shell-word.js';

/** Where a shell that reads commands from its standard input gets them. */
export type Stdin = { script: string } | { unknown: string } | undefined;

/** What else a command runs: another command, shell code (its text when known), or something known only then. */
export type Runs =
  | { kind: 'command'; words: Word[] }
  | { kind: 'script'; text: string | undefined; why: string }
  | { kind: 'unknown'; why: string };

/** How a program that runs another one reads its options. */
interface OptionSpec {
  /** Short options without an argument. */
  flags?: string;
  /** Short options that take one (attached, `-n5`, or the next word). */
  withArg?: string;
  /** Long options (without `--`) that take the next word when not written `--name=value`. */
  longWithArg?: readonly string[];
  /** Short options after which no command runs (`command -v`). */
  stop?: string;
  /** Words after the options and before the command (`timeout 5 cmd`: 1). */
  positional?: number;
  /** `NAME=value` words before the command are settings (`env`, `sudo`). */
  assignments?: boolean;
  /** `-5` is an option (`nice -5 cmd`). */
  numeric?: boolean;
  /** The short option (and its long name) whose argument is split into the command's words (`env -S`). */
  split?: { short: string; long: string };
}

/**
 * Programs that run the command in their arguments, and how they read their options. An option none of these lists
 * is read both ways (taking the next word, and not), so a word it might take is never missed as the command.
 */
const WRAPPERS: Record<string, OptionSpec> = {
  env: {
    flags: '0iv',
    withArg: 'uCS',
    longWithArg: ['unset', 'chdir', 'split-string', 'block-signal', 'default-signal', 'ignore-signal'],
    assignments: true,
    split: { short: 'S', long: 'split-string' },
  },
  command: { flags: 'p', stop: 'vV' },
  builtin: {},
  exec: { flags: 'cl', withArg: 'a' },
  nohup: {},
  nice: { withArg: 'n', longWithArg: ['adjustment'], numeric: true },
  // `time` and `coproc` are keywords before a command that may start with assignments (`time X=1 cmd`).
  time: { flags: 'pavq', withArg: 'fo', longWithArg: ['format', 'output'], assignments: true },
  timeout: { flags: 'v', withArg: 'sk', longWithArg: ['signal', 'kill-after'], positional: 1 },
  stdbuf: { withArg: 'ioe', longWithArg: ['input', 'output', 'error'] },
  sudo: {
    flags: 'AbEHiKklnPSsVv',
    withArg: 'CDghpRrTtUu',
    longWithArg: [
      'close-from',
      'chdir',
      'group',
      'host',
      'prompt',
      'chroot',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'user',
    ],
    assignments: true,
    stop: 'eKVv',
  },
  doas: { flags: 'nsL', withArg: 'uC' },
  setsid: { flags: 'cfw' },
  ionice: { flags: 't', withArg: 'cnpPu', longWithArg: ['class', 'classdata', 'pid', 'pgid', 'uid'] },
  taskset: { flags: 'acp', positional: 1 },
  chrt: { flags: 'abdfimoprRve', withArg: 'TPD', positional: 1 },
  unshare: { flags: 'muinpUCTfrc', withArg: 'SGRw' },
  chroot: { longWithArg: ['userspec', 'groups'], positional: 1 },
  strace: { flags: 'cCdDfFhiknqrtTvVwxyzZ', withArg: 'abeEIoOpPsSuUX' },
  ltrace: { flags: 'bcCfhiLrStTV', withArg: 'aAeEFlnopsuwxD' },
  nsenter: { withArg: 'tSGwW' },
  busybox: {},
  coproc: { assignments: true },
  fakeroot: {},
  eatmydata: {},
  unbuffer: {},
  catchsegv: {},
  proxychains: {},
  proxychains4: {},
  torsocks: {},
  pkexec: { longWithArg: ['user'] },
  'dbus-run-session': {},
  caffeinate: { withArg: 'tw' },
  firejail: {},
  // Reserved words the grammar may misread as a command's name (`! if ...`): what follows them is a command.
  then: { assignments: true },
  else: { assignments: true },
  elif: { assignments: true },
  do: { assignments: true },
  if: { assignments: true },
  while: { assignments: true },
  until: { assignments: true },
  '!': { assignments: true },
  '{': { assignments: true },
};

/** Shells: `-c` runs its string, a file operand is a script, otherwise commands come from standard input. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash', 'fish']);

/** The shell builtins that run text as commands, or a file's commands. */
const SOURCES = new Set(['source', '.']);

/**
 * What the command `program args...` runs besides itself: the command of a wrapper (`env`, `sudo`, `timeout`, ...),
 * a shell's `-c` string or standard input, `eval`'s text, `find -exec`, `xargs`, `trap` and `alias` text; and what
 * cannot be known before it runs (`source`, a script file, `eval` of a variable).
 */
export function runsOf(program: string, args: readonly Word[], stdin: Stdin): Runs[] {
  if (SHELLS.has(program)) return shellRuns(program, args, stdin);
  if (program === 'eval') return [joinedScript('eval', args)];
  if (SOURCES.has(program)) return [{ kind: 'unknown', why: `${program} runs the commands in ${shownArg(args[0])}` }];
  if (program === 'xargs') return xargsRuns(args);
  if (program === 'find') return findRuns(args);
  if (program === 'trap') return trapRuns(args);
  if (program === 'alias') return aliasRuns(args);
  if (program === 'hash') return hashRuns(args);
  if (program === 'mapfile' || program === 'readarray') return callbackRuns(program, args);
  if (program === 'watch') return watchRuns(args);
  if (program === 'flock') return flockRuns(args);
  if (program === 'su' || program === 'runuser' || program === 'script') return dashCRuns(program, args);
  if (program === 'sg') return args.length > 1 ? [joinedScript('sg', args.slice(args[1].raw === '-c' ? 2 : 1))] : [];
  if (program === 'parallel') return parallelRuns(args);
  if (program === 'enable' && args.some((a) => literal(a)?.startsWith('-f') ?? true))
    return [{ kind: 'unknown', why: 'enable -f loads a builtin from a shared library' }];
  const spec = WRAPPERS[program];
  if (!spec) return [];
  const read = readOptions(args, spec);
  const out: Runs[] = [];
  if (read.unreadable)
    out.push({ kind: 'unknown', why: `the options of ${program} are known only when it runs (${read.unreadable})` });
  for (const start of read.starts) if (start < args.length) out.push({ kind: 'command', words: args.slice(start) });
  // `env -S "rm x"` splits its string into the command's words.
  for (const s of read.split) out.push({ kind: 'script', text: s.text, why: `${program} -S ${s.raw}` });
  return out;
}

function shownArg(w: Word | undefined): string {
  return w ? shown(w) : 'its standard input';
}

/** The words joined with spaces as shell code (`eval a b` runs `a b`); known when every word is. */
function joinedScript(program: string, words: readonly Word[]): Runs {
  const texts = words.map(literal);
  const text = texts.every((t) => t !== undefined) ? texts.join(' ') : undefined;
  return { kind: 'script', text, why: `${program} ${words.map(shown).join(' ')}` };
}

function shellRuns(program: string, args: readonly Word[], stdin: Stdin): Runs[] {
  let i = 0;
  let cmode = false;
  let smode = false;
  for (; i < args.length; i++) {
    const w = literal(args[i]);
    if (w === undefined) return [{ kind: 'unknown', why: `the arguments of ${program} are known only when it runs` }];
    if (w === '--' || w === '-') {
      i++;
      break;
    }
    if (w.startsWith('--')) {
      if (w === '--rcfile' || w === '--init-file') i++;
      continue;
    }
    if (!/^[-+]./.test(w)) break;
    for (const c of w.slice(1)) {
      if (c === 'c') cmode = true;
      else if (c === 's') smode = true;
      else if (c === 'o' || c === 'O') i++;
    }
  }
  if (cmode)
    return i < args.length ? [{ kind: 'script', text: literal(args[i]), why: `${program} -c ${shown(args[i])}` }] : [];
  if (i < args.length && !smode) return [{ kind: 'unknown', why: `${program} runs the script file ${shown(args[i])}` }];
  if (!stdin) return [];
  if ('script' in stdin) return [{ kind: 'script', text: stdin.script, why: `${program} reading its standard input` }];
  return [{ kind: 'unknown', why: `${program} ${stdin.unknown}` }];
}

function xargsRuns(args: readonly Word[]): Runs[] {
  const read = readOptions(args, {
    flags: '0rtpxo',
    withArg: 'adEILnPsei',
    longWithArg: [
      'arg-file',
      'delimiter',
      'eof',
      'replace',
      'max-lines',
      'max-args',
      'max-procs',
      'max-chars',
      'process-slot-var',
    ],
  });
  const out: Runs[] = [];
  if (read.unreadable)
    out.push({ kind: 'unknown', why: `the options of xargs are known only when it runs (${read.unreadable})` });
  // The words xargs reads from its input are added to the command: they are known only when it runs.
  for (const start of read.starts)
    out.push({
      kind: 'command',
      words: [...(start < args.length ? args.slice(start) : [textWord('echo')]), holeWord('<input of xargs>')],
    });
  return out;
}

function findRuns(args: readonly Word[]): Runs[] {
  const out: Runs[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]);
    if (w === '-delete') out.push({ kind: 'command', words: [textWord('rm'), holeWord('<what find -delete finds>')] });
    if (w === '-exec' || w === '-execdir' || w === '-ok' || w === '-okdir') {
      const words: Word[] = [];
      for (i++; i < args.length && literal(args[i]) !== ';' && literal(args[i]) !== '+'; i++)
        words.push(literal(args[i])?.includes('{}') ? holeWord(args[i].raw) : args[i]);
      if (words.length) out.push({ kind: 'command', words });
    }
  }
  return out;
}

function trapRuns(args: readonly Word[]): Runs[] {
  const rest = args.filter((a) => !['-p', '-l', '-P', '--'].includes(a.raw));
  if (rest.length < 2 || rest[0].raw === '-') return [];
  return [{ kind: 'script', text: literal(rest[0]), why: `trap ${shown(rest[0])}` }];
}

function aliasRuns(args: readonly Word[]): Runs[] {
  const out: Runs[] = [];
  for (const a of args) {
    const t = literal(a);
    if (t === undefined) out.push({ kind: 'unknown', why: `alias ${shown(a)}` });
    else if (t.includes('=')) out.push({ kind: 'script', text: t.slice(t.indexOf('=') + 1), why: `alias ${t}` });
  }
  return out;
}

/** `hash -p /bin/rm ls` makes `ls` run rm: judged as running that program. */
function hashRuns(args: readonly Word[]): Runs[] {
  const i = args.findIndex((a) => literal(a) === '-p');
  if (i < 0 || i + 1 >= args.length) return [];
  return [{ kind: 'command', words: [args[i + 1], holeWord('<arguments>')] }];
}

function callbackRuns(program: string, args: readonly Word[]): Runs[] {
  const i = args.findIndex((a) => literal(a) === '-C' || (literal(a)?.startsWith('-C') ?? false));
  if (i < 0) return [];
  const attached = literal(args[i])!.slice(2);
  if (attached) return [{ kind: 'script', text: attached, why: `${program} -C ${attached}` }];
  return i + 1 < args.length
    ? [{ kind: 'script', text: literal(args[i + 1]), why: `${program} -C ${shown(args[i + 1])}` }]
    : [];
}

function watchRuns(args: readonly Word[]): Runs[] {
  const exec = args.some((a) => a.raw === '-x' || a.raw === '--exec');
  const read = readOptions(args, { flags: 'bcdegtxprCw', withArg: 'nq', longWithArg: ['interval', 'equexit'] });
  const out: Runs[] = [];
  for (const start of read.starts)
    if (start < args.length)
      out.push(exec ? { kind: 'command', words: args.slice(start) } : joinedScript('watch', args.slice(start)));
  return out;
}

function flockRuns(args: readonly Word[]): Runs[] {
  const c = args.findIndex((a) => a.raw === '-c' || a.raw === '--command');
  if (c >= 0)
    return c + 1 < args.length
      ? [{ kind: 'script', text: literal(args[c + 1]), why: `flock -c ${shown(args[c + 1])}` }]
      : [];
  const read = readOptions(args, {
    flags: 'sxunoFe',
    withArg: 'wE',
    longWithArg: ['timeout', 'conflict-exit-code'],
    positional: 1,
  });
  return [...read.starts]
    .filter((s) => s < args.length)
    .map((s) => ({ kind: 'command', words: args.slice(s) }) as Runs);
}

/** `su -c`, `runuser -c`, `script -c`: the string is shell code. */
function dashCRuns(program: string, args: readonly Word[]): Runs[] {
  const out: Runs[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]);
    if (w === '-c' || w === '--command' || w === '--session-command') {
      if (i + 1 < args.length)
        out.push({ kind: 'script', text: literal(args[i + 1]), why: `${program} ${w} ${shown(args[i + 1])}` });
    } else if (w?.startsWith('--command=') || w?.startsWith('--session-command='))
      out.push({ kind: 'script', text: w.slice(w.indexOf('=') + 1), why: `${program} ${w}` });
  }
  return out;
}

/** GNU parallel runs its command template with a shell, once per input. */
function parallelRuns(args: readonly Word[]): Runs[] {
  const end = args.findIndex((a) => /^:::+\+?$/.test(a.raw));
  const template = (end < 0 ? args : args.slice(0, end)).filter((a) => !a.raw.startsWith('-'));
  if (!template.length) return [{ kind: 'unknown', why: 'parallel reads its commands from its input' }];
  return [
    joinedScript(
      'parallel',
      template.map((w) => (literal(w)?.includes('{') ? holeWord(w.raw) : w)),
    ),
  ];
}

/**
 * Where the command in `args` may start, given the program's options: every reading of an option it does not know
 * (taking the next word, or not) is followed, so the result is a set. `split`: `-S` strings (env).
 */
function readOptions(
  args: readonly Word[],
  spec: OptionSpec,
): { starts: Set<number>; split: Array<{ text: string | undefined; raw: string }>; unreadable?: string } {
  const starts = new Set<number>();
  const split: Array<{ text: string | undefined; raw: string }> = [];
  const seen = new Set<number>();
  const todo = [0];
  let unreadable: string | undefined;
  const positional = (i: number) => starts.add(i + (spec.positional ?? 0));
  while (todo.length) {
    const i = todo.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    if (i >= args.length) continue;
    const w = literal(args[i]);
    if (w === undefined) {
      unreadable = shown(args[i]);
      continue;
    }
    if (w === '--') {
      positional(i + 1);
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      todo.push(i + 1);
      continue;
    }
    if (!w.startsWith('-') || w === '-') {
      positional(i);
      continue;
    }
    if (w.startsWith('--')) {
      const name = w.slice(2).split('=')[0];
      if (name === spec.split?.long) {
        const eq = w.indexOf('=');
        split.push(
          eq > 0
            ? { text: w.slice(eq + 1), raw: w }
            : { text: literal(args[i + 1] ?? textWord('')), raw: args[i + 1]?.raw ?? '' },
        );
      }
      if (w.includes('=') || !spec.longWithArg) todo.push(i + 1);
      else if (spec.longWithArg.includes(name)) todo.push(i + 2);
      else todo.push(i + 1, i + 2);
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(w)) {
      todo.push(i + 1);
      continue;
    }
    for (const next of shortCluster(w.slice(1), i, args, spec, split)) todo.push(next);
  }
  return { starts, split, ...(unreadable !== undefined ? { unreadable } : {}) };
}

/** The indices reading can go on from after the short-option cluster `letters` at word `i`. */
function shortCluster(
  letters: string,
  i: number,
  args: readonly Word[],
  spec: OptionSpec,
  split: Array<{ text: string | undefined; raw: string }>,
): number[] {
  const out: number[] = [];
  for (let j = 0; j < letters.length; j++) {
    const c = letters[j];
    const rest = letters.slice(j + 1);
    if (spec.stop?.includes(c)) return out;
    if (spec.withArg?.includes(c)) {
      if (c === spec.split?.short)
        split.push(
          rest ? { text: rest, raw: rest } : { text: args[i + 1] && literal(args[i + 1]), raw: args[i + 1]?.raw ?? '' },
        );
      out.push(rest ? i + 1 : i + 2);
      return out;
    }
    if (!spec.flags?.includes(c)) out.push(rest ? i + 1 : i + 2); // unknown: it may take an argument ...
  }
  out.push(i + 1); // ... or be a flag
  return out;
}
