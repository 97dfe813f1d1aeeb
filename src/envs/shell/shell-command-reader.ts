import { ANY_COMMAND, QitosError, type ShellCommand } from '../../core/index.js';
import { BashGrammar, type ParseLimits, type SyntaxNode } from './bash-grammar.js';
import { runsOf, type Stdin } from './command-runners.js';
import { ESCAPED_BLANKS, literal, shown, wordOf, type Piece, type Word } from './shell-word.js';

/** Bounds on reading one command line: past any of them the line is refused rather than judged. */
export interface ShellReadLimits extends ParseLimits {
  /** Most characters parsed in all (the line and every `bash -c` or `eval` string in it). */
  maxChars: number;
  /** Deepest nesting of shell code in shell code (`bash -c "eval '...'"`). */
  maxNesting: number;
  /** Most commands found. */
  maxCommands: number;
}

/** The default bounds: far beyond a command a person or a model writes, well below what takes the judge long. */
export const SHELL_READ_LIMITS: ShellReadLimits = {
  maxChars: 100_000,
  maxDepth: 256,
  maxNodes: 100_000,
  maxProgress: 5_000,
  maxNesting: 16,
  maxCommands: 2_000,
};

/** Where a program found by path is taken as what its basename says (anywhere else it may be any program). */
const SYSTEM_PROGRAM = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;
const WORDLIKE = new Set([
  'word',
  'string',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
  'number',
  'brace_expression',
]);
/** Shell code in a quoted string runs if the shell evaluates it again (arithmetic, `${x@P}`, `declare`). */
const CODE_IN_TEXT = /\$\(|`|[<>]\(/;

/** Thrown inside a reading that passed one of its bounds (an `input` error); the line is then refused with the message. */
const tooMuch = (why: string) => new QitosError('input', why);

/**
 * Reads a command line as bash will (tree-sitter-bash) and lists every command it runs, at any depth: simple
 * commands in substitutions, subshells, groups, `if`/`for`/`while`/`case`, function bodies, pipelines, here-documents;
 * what wrappers run (`env`, `sudo`, `timeout`, `xargs`, `find -exec`, ...); the strings of `bash -c`, `eval`,
 * `trap` and `alias`, and a here-document fed to a shell, parsed in turn. Each is normalised as the shell sees it
 * (quotes and escapes removed, leading assignments dropped, the program by its basename, one space between words).
 * What is known only when it runs (a program named by a variable, `eval "$x"`, `source`, a script file) comes with
 * a `shape` and the reason. A line past the bounds is one `refused` command. After {@link ShellCommandReader.load}
 * reading is synchronous.
 */
export class ShellCommandReader {
  private constructor(
    private readonly grammar: BashGrammar,
    private readonly limits: ShellReadLimits,
  ) {}

  /** Loads the bash grammar (once per process) and makes a reader. */
  static async load(limits: Partial<ShellReadLimits> = {}): Promise<ShellCommandReader> {
    return new ShellCommandReader(await BashGrammar.load(), { ...SHELL_READ_LIMITS, ...limits });
  }

  /** The commands `line` runs (see the class). */
  read(line: string): ShellCommand[] {
    const reading = new Reading(this.grammar, this.limits);
    try {
      reading.script(line, 0, false);
    } catch (err) {
      if (QitosError.isInstance(err) && err.kind === 'input')
        return [
          { text: line.length > 200 ? `${line.slice(0, 200)}...` : line, shape: ANY_COMMAND, refused: err.message },
        ];
      throw err;
    }
    return reading.out;
  }
}

/**
 * `ProcessOps.commands` for an env whose commands bash (or a POSIX shell) runs: each call reads the line with a
 * {@link ShellCommandReader}, loaded on the first call.
 */
export function shellCommands(): (line: string) => Promise<readonly ShellCommand[]> {
  let reader: Promise<ShellCommandReader> | undefined;
  return async (line) => {
    reader ??= ShellCommandReader.load();
    reader.catch(() => (reader = undefined));
    return (await reader).read(line);
  };
}

/** One reading of a command line: the commands found so far and what the bounds have left. */
class Reading {
  readonly out: ShellCommand[] = [];
  private chars = 0;

  constructor(
    private readonly grammar: BashGrammar,
    private readonly limits: ShellReadLimits,
  ) {}

  /**
   * Reads shell code found at `nesting` levels of code in code. `quiet`: the code is text that runs only if the
   * shell evaluates it again, where only its substitutions run; a parse error is then no finding.
   */
  script(text: string, nesting: number, quiet: boolean): void {
    if (nesting > this.limits.maxNesting)
      throw tooMuch(`it nests shell code in shell code more than ${this.limits.maxNesting} levels deep`);
    this.chars += text.length;
    if (this.chars > this.limits.maxChars)
      throw tooMuch(`it is longer than ${this.limits.maxChars} characters (with the shell code inside it)`);
    let source = text;
    let root = this.parse(source);
    // Where bash's lexer and the grammar differ (line continuations, escaped blanks; see lexicalFixes), the text is
    // put as bash sees it and read again.
    // The grammar does not know the keywords `time` and `coproc`: it reads `time { rm x; }` as a command `time` with
    // arguments. They are blanked out (offsets kept) and the text read again, so what they run reads as bash does.
    for (let round = 0; round < 8; round++) {
      const next = blankKeywords(root, lexicalFixes(root, source));
      if (next === source) break;
      source = next;
      root = this.parse(source);
    }
    this.walk(quiet ? substitutions(root) : [root], source, nesting, quiet);
  }

  private parse(text: string): SyntaxNode {
    const root = this.grammar.parse(text, this.limits);
    if (typeof root === 'string') throw tooMuch(root);
    return root;
  }

  private emit(c: ShellCommand): void {
    this.out.push(c);
    if (this.out.length > this.limits.maxCommands)
      throw tooMuch(`it runs more than ${this.limits.maxCommands} commands`);
  }

  private unknown(text: string, why: string): void {
    this.emit({ text, shape: ANY_COMMAND, unknown: `${why}: what runs is known only when it runs` });
  }

  /** Every node, without recursion: simple commands are judged, everything else is looked into. */
  private walk(roots: SyntaxNode[], source: string, nesting: number, quiet: boolean): void {
    let broken = false;
    const todo = [...roots];
    while (todo.length) {
      const node = todo.pop()!;
      if (node.broken && !broken && !quiet) {
        broken = true;
        const near = source.slice(node.start, Math.min(node.end, node.start + 40)) || source.slice(0, 40);
        this.unknown(
          source.length > 200 ? `${source.slice(0, 200)}...` : source,
          `bash cannot read this command line as written (near ${JSON.stringify(near)})`,
        );
      }
      if (WORDLIKE.has(node.type) && !WORDLIKE.has(node.parent?.type ?? '')) this.scanText(node, source, nesting);
      if (node.type === 'command') this.simple(node, source, nesting);
      else if (node.type === 'declaration_command' || node.type === 'unset_command')
        this.judge(
          node.children
            .filter((c) => c.start < c.end && (c.children.length === 0 || WORDLIKE.has(c.type)))
            .map((c) =>
              WORDLIKE.has(c.type)
                ? wordOf(c, source)
                : { pieces: [source.slice(c.start, c.end)], bare: false, raw: '' },
            ),
          undefined,
          nesting,
        );
      for (let i = node.children.length - 1; i >= 0; i--) todo.push(node.children[i]);
    }
  }

  /**
   * A word's text that holds shell code (`x='a[$(rm y)]'`) is read as code too: it runs if the shell evaluates the
   * text again, as arithmetic does with a variable's value (`(( x ))`), `${x@P}` and `declare` do.
   */
  private scanText(node: SyntaxNode, source: string, nesting: number): void {
    const text = wordOf(node, source)
      .pieces.filter((p) => typeof p === 'string')
      .join('');
    if (CODE_IN_TEXT.test(text)) this.script(text, nesting + 1, true);
  }

  /** A simple command: its words (redirections' stray words too, which the grammar files under them), its stdin. */
  private simple(node: SyntaxNode, source: string, nesting: number): void {
    const words: SyntaxNode[] = [];
    const redirects: SyntaxNode[] = [];
    for (const c of node.children) {
      if (c.type === 'command_name') words.push(...c.children);
      else if (c.field === 'argument') words.push(c);
      else if (c.type.endsWith('_redirect')) redirects.push(c);
    }
    const outer = node.parent?.type === 'redirected_statement' && node.field === 'body' ? node.parent : undefined;
    if (outer) redirects.push(...outer.children.filter((c) => c.type.endsWith('_redirect')));
    // The grammar files a redirection written after a here-document's start (`cat <<EOF > out`) under it.
    for (const r of [...redirects])
      if (r.type === 'heredoc_redirect') redirects.push(...r.children.filter((c) => c.type.endsWith('_redirect')));
    for (const r of redirects)
      if (r.type === 'file_redirect') words.push(...r.children.filter((c) => WORDLIKE.has(c.type)).slice(1));
    words.sort((a, b) => a.start - b.start);
    this.judge(
      words.map((w) => wordOf(w, source)),
      stdinOf(node, source),
      nesting,
      0,
      redirects.sort((a, b) => a.start - b.start).map((r) => redirectWord(r, source)),
    );
  }

  /**
   * Judges the command `words` and what it runs in turn; `depth` counts wrappers looked through. `redirects` are
   * shown (and matched) after the arguments: `wc -l < notes.txt`.
   */
  private judge(words: Word[], stdin: Stdin, nesting: number, depth = 0, redirects: Word[] = []): void {
    if (!words.length) return;
    if (depth > 64) throw tooMuch('it wraps a command in more than 64 programs that run it');
    const [name, ...args] = words;
    // An unquoted expansion may be no word at all: then the next word is the program.
    if (name.bare && name.pieces.every((p) => typeof p !== 'string')) this.judge(args, stdin, nesting, depth + 1);
    const program = programOf(name);
    const shape = shapeOf(program.pieces, [...args, ...redirects]);
    const text = [
      program.pieces.map((p) => (typeof p === 'string' ? p : p.hole)).join(''),
      ...[...args, ...redirects].map(shown),
    ].join(' ');
    const holes = [name, ...args, ...redirects].flatMap((w) =>
      w.pieces.filter((p) => typeof p !== 'string').map((p) => p.hole),
    );
    this.emit({
      text,
      ...(shape.includes(null)
        ? { shape, unknown: `${holes.join(', ')} ${holes.length > 1 ? 'are' : 'is'} known only when it runs` }
        : {}),
    });
    if (program.base === undefined) return;
    if (program.path !== undefined && !SYSTEM_PROGRAM.test(program.path))
      this.unknown(text, `it runs the file ${program.path}`);
    for (const r of runsOf(program.base, args, stdin)) {
      if (r.kind === 'command') this.judge(r.words, stdin, nesting, depth + 1);
      else if (r.kind === 'unknown') this.unknown(text, r.why);
      else if (r.text === undefined) this.unknown(text, `${r.why} runs text that is known only when it runs`);
      else this.script(r.text, nesting + 1, false);
    }
  }
}

/** The program a command word names: its basename when known, and the path it was given by. */
function programOf(name: Word): { base?: string; pieces: Piece[]; path?: string } {
  const lit = literal(name);
  if (lit !== undefined) {
    const slash = lit.lastIndexOf('/');
    return { base: lit.slice(slash + 1), pieces: [lit.slice(slash + 1)], ...(slash >= 0 ? { path: lit } : {}) };
  }
  // A hole may hold slashes: the basename is what follows the last slash written after the last hole, if any.
  const lastHole = name.pieces.findLastIndex((p) => typeof p !== 'string');
  const tail = name.pieces.slice(lastHole + 1).join('');
  const slash = tail.lastIndexOf('/');
  if (slash >= 0) return { base: tail.slice(slash + 1), pieces: [tail.slice(slash + 1)], path: shown(name) };
  const head = shown({ ...name, pieces: name.pieces.slice(0, lastHole + 1) });
  return { pieces: [{ hole: head }, ...(tail ? [tail] : [])] };
}

/** The command as pieces for matching, `null` where a hole stands; a word that may vanish takes its space with it. */
function shapeOf(program: Piece[], args: readonly Word[]): (string | null)[] {
  const out: (string | null)[] = program.map((p) => (typeof p === 'string' ? p : null));
  for (const a of args) {
    const vanishes = a.bare && a.pieces.every((p) => typeof p !== 'string');
    if (vanishes) out.push(null);
    else out.push(' ', ...a.pieces.map((p) => (typeof p === 'string' ? p : null)));
  }
  return out;
}

/** A redirection as shown after a command's arguments: `< notes.txt`, `2> /dev/null`, `<<EOF` (not its body). */
function redirectWord(r: SyntaxNode, source: string): Word {
  const target = r.children.find((c) => WORDLIKE.has(c.type) || c.type === 'heredoc_start');
  const head = source.slice(r.start, target ? target.start : r.end).replace(/\s+/g, '');
  if (!target || target.type === 'heredoc_start')
    return { pieces: [head + (target ? source.slice(target.start, target.end) : '')], bare: false, raw: '' };
  const w = wordOf(target, source);
  return { pieces: [`${head} `, ...w.pieces], bare: false, raw: `${head} ${w.raw}` };
}

/**
 * Where a shell run as this command would read commands from: a here-document, a here-string or a file given to it
 * or to a statement around it (the grammar files `a && sh <<EOF` under the list), or a pipe.
 */
function stdinOf(node: SyntaxNode, source: string): Stdin {
  for (let n: SyntaxNode | null = node; n; n = n.parent) {
    for (const r of n.children) {
      const given = redirectedStdin(r, source);
      if (given) return given;
    }
    // In a pipeline, every command but the first reads the one before it. (The grammar files `cat <<EOF | sh` as a
    // pipeline inside the here-document that starts with `|`.)
    if (n.parent?.type === 'pipeline' && n.parent.children[0] !== n) return { unknown: 'reads commands from a pipe' };
  }
  return undefined;
}

function redirectedStdin(r: SyntaxNode, source: string): Stdin {
  if (r.type === 'herestring_redirect') {
    const w = r.children.find((c) => WORDLIKE.has(c.type));
    const t = w && literal(wordOf(w, source));
    return t === undefined ? { unknown: 'reads a here-string known only when it runs' } : { script: t };
  }
  if (r.type === 'heredoc_redirect') {
    const start = r.children.find((c) => c.type === 'heredoc_start');
    const body = r.children.find((c) => c.type === 'heredoc_body');
    if (!body) return { script: '' };
    const text = source.slice(body.start, body.end);
    if (start && /['"\\]/.test(source.slice(start.start, start.end))) return { script: text };
    if (body.children.some((c) => c.type !== 'heredoc_content'))
      return { unknown: 'reads a here-document with expansions, known only when it runs' };
    return { script: text.replace(/\\([$`\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)) };
  }
  if (r.type === 'file_redirect') {
    const op = r.children.find((c) => c.type === '<' || c.type === '<>' || c.type === '<&');
    const fd = r.children.find((c) => c.type === 'file_descriptor');
    if (op && (!fd || source.slice(fd.start, fd.end) === '0'))
      return { unknown: `reads commands from ${source.slice(r.start, r.end)}` };
  }
  return undefined;
}

/**
 * `text` with the keywords `time` (and its `-p`) and `coproc` (and the NAME before a `{` or `(`) in command position,
 * and the `!` of a negated command, replaced by spaces: what follows them is then read as the command it is.
 */
function blankKeywords(root: SyntaxNode, text: string): string {
  const blanks: Array<[number, number]> = [];
  const todo = [root];
  while (todo.length) {
    const n = todo.pop()!;
    todo.push(...n.children);
    // `!` only negates the status; the grammar reads `! { rm x; }` as a command named `{`, so it goes too.
    if (n.type === 'negated_command' && n.children[0]?.type === '!')
      blanks.push([n.children[0].start, n.children[0].end]);
    if (n.type !== 'command') continue;
    const words = n.children.filter((c) => c.type === 'command_name' || c.field === 'argument');
    const name = words[0]?.type === 'command_name' ? words[0].children[0] : undefined;
    const keyword = name?.type === 'word' ? text.slice(name.start, name.end) : undefined;
    if (keyword !== 'time' && keyword !== 'coproc') continue;
    let end = name!.end;
    const next = (i: number) => (words[i] ? text.slice(words[i].start, words[i].end) : undefined);
    if (keyword === 'time') for (let i = 1; next(i) === '-p' || next(i) === '--'; i++) end = words[i].end;
    else if (next(1) !== undefined && /^\s*[{(]/.test(text.slice(words[1].end))) end = words[1].end;
    blanks.push([name!.start, end]);
  }
  if (!blanks.length) return text;
  let out = text;
  for (const [a, b] of blanks) out = out.slice(0, a) + ' '.repeat(b - a) + out.slice(b);
  return out;
}

/** The outermost command and process substitutions of a tree. */
function substitutions(root: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const todo = [root];
  while (todo.length) {
    const n = todo.pop()!;
    if (n.type === 'command_substitution' || n.type === 'process_substitution') out.push(n);
    else todo.push(...n.children);
  }
  return out;
}

/**
 * `text` as bash's lexer sees it where the grammar does not: a backslash-newline pair between tokens (a line
 * continuation, which bash removes before it splits words: `r\\<newline>m` is `rm`) is removed, and an escaped
 * blank between tokens (`\\ `, which starts a word in bash and is dropped as space by the grammar) becomes a
 * {@link ESCAPED_BLANKS} stand-in, which a word turns back into the blank.
 */
function lexicalFixes(root: SyntaxNode, text: string): string {
  if (!/\\[\n \t]/.test(text)) return text;
  const inside = new Uint8Array(text.length + 1);
  const todo = [root];
  while (todo.length) {
    const n = todo.pop()!;
    if (n.children.length) todo.push(...n.children);
    else inside.fill(1, n.start, n.end);
  }
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const next = text[i + 1];
    if (text[i] !== '\\' || inside[i] || inside[i + 1] || (next !== '\n' && next !== ' ' && next !== '\t'))
      out += text[i];
    else {
      if (next !== '\n') out += next === ' ' ? ESCAPED_BLANKS[0] : ESCAPED_BLANKS[1];
      i++;
    }
  }
  return out;
}
