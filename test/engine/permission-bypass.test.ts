import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionRules, type PermissionAction } from '../../src/core/index.js';
import { PermissionGate } from '../../src/engine/permission-gate.js';
import { shellCommands } from '../../src/envs/shell/shell-command-reader.js';
import { bashTool } from '../../src/kit/tools/index.js';

/** The rules of issue #39: everything but rm and git push. */
const RULES = { bash: { '*': 'allow', 'rm *': 'deny', 'git push*': 'deny' } } as const;

function gate(root = '/tmp'): PermissionGate {
  return new PermissionGate({
    runId: 'r',
    rules: new PermissionRules(RULES),
    approver: undefined,
    timeoutMs: 1000,
    root: () => root,
    signal: new AbortController().signal,
    step: () => 1,
    emit: () => undefined,
    tool: () => undefined,
    commands: shellCommands(),
  });
}

const bash = bashTool();
const judge = (g: PermissionGate, command: string) =>
  g.judge({ id: 'c', name: 'bash', args: { command } }, bash, { command });

/**
 * What real bash does with a command line, in a fresh folder holding a file `x`, with a `git` that records its
 * arguments first on PATH: whether `x` was removed and whether `git push` ran.
 */
let stubs: string;
function oracle(command: string): { rm: boolean; push: boolean } {
  const dir = join(stubs, `run-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'x'), 'x');
  spawnSync('bash', ['-c', command], {
    cwd: dir,
    env: { PATH: `${join(stubs, 'bin')}:/usr/bin:/bin`, HOME: dir, LOG: join(dir, 'git.log') },
    input: '',
    timeout: 10_000,
  });
  const log = existsSync(join(dir, 'git.log')) ? readFileSync(join(dir, 'git.log'), 'utf8') : '';
  return { rm: !existsSync(join(dir, 'x')), push: /^push\b/m.test(log) };
}

beforeAll(() => {
  stubs = mkdtempSync(join(tmpdir(), 'qitos-bypass-'));
  mkdirSync(join(stubs, 'bin'));
  writeFileSync(join(stubs, 'bin', 'git'), '#!/bin/sh\necho "$*" >> "$LOG"\n');
  chmodSync(join(stubs, 'bin', 'git'), 0o755);
});
afterAll(() => rmSync(stubs, { recursive: true, force: true }));

type Verdict = PermissionAction | 'ask (guarded)';
/**
 * Spellings of `rm x` and `git push` that ran on main under these rules, more an attacker would try, and what they
 * are judged now: `deny` where the command is known, an ask standing for a deny where part of it is known only when
 * it runs (refused when no one can answer, and never approved by --auto). `runs`: what real bash does with it, so
 * the table cannot hold a spelling that does not run the program; null where the program is not on this machine.
 */
const TABLE: Array<[command: string, verdict: Verdict, runs: 'rm' | 'push' | 'nothing' | null]> = [
  // 1. substitutions inside double quotes
  ['echo "$(rm x)"', 'deny', 'rm'],
  ['echo "`rm x`"', 'deny', 'rm'],
  // 2. spellings of the same program, and wrappers
  ['\\rm x', 'deny', 'rm'],
  ['/bin/rm x', 'deny', 'rm'],
  ["r''m x", 'deny', 'rm'],
  ['"rm" x', 'deny', 'rm'],
  ['X=1 rm x', 'deny', 'rm'],
  ['rm\tx', 'deny', 'rm'],
  ['rm\\\n x', 'deny', 'rm'],
  ['! rm x', 'deny', 'rm'],
  ['env rm x', 'deny', 'rm'],
  ['command rm x', 'deny', 'rm'],
  ['exec rm x', 'deny', 'rm'],
  ['nice rm x', 'deny', 'rm'],
  ['time rm x', 'deny', 'rm'],
  ['nohup rm x', 'deny', 'rm'],
  ['timeout 5 rm x', 'deny', 'rm'],
  // 3. compound commands and indirection
  ['{ rm x; }', 'deny', 'rm'],
  ['( rm x )', 'deny', 'rm'],
  ['if true; then rm x; fi', 'deny', 'rm'],
  ['for f in x; do rm $f; done', 'ask (guarded)', 'rm'],
  ['f() { rm x; }; f', 'deny', 'rm'],
  ['echo x | xargs rm', 'ask (guarded)', 'rm'],
  ['find . -name x -delete', 'ask (guarded)', 'rm'],
  ['bash -c "rm x"', 'deny', 'rm'],
  ["sh -c 'rm x'", 'deny', 'rm'],
  ['eval "rm x"', 'deny', 'rm'],
  // 4. whitespace inside a multi-word pattern
  ['git  push origin main', 'deny', 'push'],
  ['git\tpush', 'deny', 'push'],
  // the red-team pass: more spellings
  ["$'\\x72m' x", 'deny', 'rm'],
  ["$'\\162m' x", 'deny', 'rm'],
  ['"r"m x', 'deny', 'rm'],
  ['r\\\nm x', 'deny', 'rm'],
  ['rm${IFS}x', 'ask (guarded)', 'rm'],
  ['{rm,x}', 'ask (guarded)', 'rm'],
  ['{r,}m x', 'ask (guarded)', 'rm'],
  ['shopt -s expand_aliases\nalias y=rm\ny x', 'deny', 'rm'],
  ['builtin eval "rm x"', 'deny', 'rm'],
  ['/usr/bin/env -S "rm x"', 'deny', 'rm'],
  ['env -- rm x', 'deny', 'rm'],
  ['env -i PATH=/bin rm x', 'deny', 'rm'],
  ['command -- rm x', 'deny', 'rm'],
  ['nice -n 5 rm x', 'deny', 'rm'],
  ['timeout -s KILL 5 rm x', 'deny', 'rm'],
  ['stdbuf -o0 rm x', 'deny', 'rm'],
  ['setsid -w rm x', 'deny', 'rm'],
  ['flock lock rm x', 'deny', 'rm'],
  ['flock lock -c "rm x"', 'deny', 'rm'],
  ['sudo -u root rm x', 'deny', null],
  ['doas rm x', 'deny', null],
  ['busybox rm x', 'deny', null],
  ['cat <(rm x)', 'deny', 'rm'],
  ['echo >(rm x); wait', 'deny', 'rm'],
  ["sh <<'EOF'\nrm x\nEOF", 'deny', 'rm'],
  ['bash <<EOF\nrm x\nEOF', 'deny', 'rm'],
  ["bash <<< 'rm x'", 'deny', 'rm'],
  ["echo 'rm x' | sh", 'ask (guarded)', 'rm'],
  ['cat <<EOF | sh\nrm x\nEOF', 'ask (guarded)', 'rm'],
  ['PATH=/usr/bin:/bin rm x', 'deny', 'rm'],
  ['echo $((1 + $(rm x; echo 1)))', 'deny', 'rm'],
  ["x='a[$(rm x)]'; (( x ))", 'deny', 'rm'],
  ["y='$(rm x)'; echo ${y@P}", 'deny', 'rm'],
  ['coproc rm x; wait', 'deny', 'rm'],
  ['exec 3>y rm x', 'deny', 'rm'],
  ['echo 2>/dev/null; rm x', 'deny', 'rm'],
  ['trap "rm x" EXIT', 'deny', 'rm'],
  ['hash -p /bin/rm ls; ls x', 'ask (guarded)', 'rm'],
  ['bash -c "bash -c \'rm x\'"', 'deny', 'rm'],
  ['echo x | sh -c "xargs rm"', 'ask (guarded)', 'rm'],
  ['find . -name x -exec rm {} \\;', 'ask (guarded)', 'rm'],
  ['x=$(rm x)', 'deny', 'rm'],
  ['declare y=$(rm x)', 'deny', 'rm'],
  ['[[ -n $(rm x) ]]', 'deny', 'rm'],
  ['case a in a) rm x;; esac', 'deny', 'rm'],
  ['while rm x; do break; done', 'deny', 'rm'],
  ['true && rm x', 'deny', 'rm'],
  ['false || rm x', 'deny', 'rm'],
  ['rm x &\nwait', 'deny', 'rm'],
  ['C=rm; $C x', 'ask (guarded)', 'rm'],
  ['$EMPTY rm x', 'deny', 'rm'],
  ['eval "$(echo rm x)"', 'ask (guarded)', 'rm'],
  ['printf "rm x" > s.sh; bash s.sh', 'ask (guarded)', 'rm'],
  ['printf "rm x" > s.sh; source s.sh', 'ask (guarded)', 'rm'],
  ['printf "rm x" > s.sh; chmod +x s.sh; ./s.sh', 'ask (guarded)', 'rm'],
  ['"git" push', 'deny', 'push'],
  ["g'i't push origin", 'deny', 'push'],
  ['env GIT_DIR=. git push', 'deny', 'push'],
  ['git pu*', 'ask (guarded)', null],
  ['git "$(echo push)"', 'ask (guarded)', 'push'],
  // and what must stay allowed: these run neither
  ['echo rm x', 'allow', 'nothing'],
  ["echo 'rm x' > notes.txt", 'allow', 'nothing'],
  ['git status && git log --oneline', 'allow', 'nothing'],
  ['grep -rn "git push" . | wc -l', 'allow', 'nothing'],
  ['ｒｍ x', 'allow', 'nothing'], // fullwidth letters: another program (not found), not rm
  ['rм x', 'allow', 'nothing'], // a Cyrillic м: the same
  ['command -v rm', 'allow', 'nothing'],
  ['cat <<EOF\nrm x\nEOF', 'allow', 'nothing'],
];

describe('shell commands are judged as the shell will run them (rm and git push denied)', () => {
  it.each(TABLE)('%j is %s', async (command, verdict, runs) => {
    const j = await judge(gate(), command);
    const got: Verdict = j.action === 'ask' && j.guarded ? 'ask (guarded)' : j.action;
    expect(got, JSON.stringify(j)).toBe(verdict);
    if (got !== 'allow') expect(j.rule?.pattern).toMatch(/^(rm \*|git push\*)$/);
    if (runs === null) return;
    const did = oracle(command);
    expect(did).toEqual({ rm: runs === 'rm', push: runs === 'push' });
  });

  it('an ask that stands for a deny names what is known only when it runs', async () => {
    const j = await judge(gate(), 'C=rm; $C x');
    expect(j.message).toBe('$C x: $C is known only when it runs');
    const s = await judge(gate(), 'bash s.sh');
    expect(s.message).toBe('bash s.sh: bash runs the script file s.sh: what runs is known only when it runs');
  });

  it('a line too long or nested too deep to judge is refused at once, saying why (no stack overflow, no hang)', async () => {
    const g = gate();
    const deep = await judge(g, `${'echo $('.repeat(5000)}rm x${')'.repeat(5000)}`);
    expect(deep).toMatchObject({ action: 'deny', rule: null });
    expect(deep.message).toMatch(
      /^the command line is refused: it (is nested more than 256 levels deep|takes the parser more than 5000 rounds)/,
    );
    const nested = await judge(g, `${'bash -c "'.repeat(1)}${'eval \\"'.repeat(20)}rm x`);
    expect(nested.action).toBe('deny');
    const long = await judge(g, `echo ${'a'.repeat(100_001)}`);
    expect(long.message).toBe(
      'the command line is refused: it is longer than 100000 characters (with the shell code inside it)',
    );
    let nest = 'rm x';
    for (let i = 0; i < 20; i++) nest = `bash <<'E${i}'\n${nest}\nE${i}`;
    expect((await judge(g, nest)).message).toBe(
      'the command line is refused: it nests shell code in shell code more than 16 levels deep',
    );
    // Under rules that allow every command, nothing is read: a long line runs as before.
    const open = new PermissionGate({
      ...(g as unknown as { o: object }).o,
      rules: new PermissionRules({ bash: 'allow' }),
    } as never);
    expect((await judge(open, `echo ${'a'.repeat(100_001)}`)).action).toBe('allow');
  });
});

/** Programs that run the command after them (any of them can run another). */
const runners = ['env', 'env -i', 'env --', 'nice -n 1', 'nohup', 'timeout 9', 'stdbuf -o0', 'setsid -w'];
/** Builtins that run the command after them (only the shell can run them: outermost). */
const builtins = ['', 'command', 'command --', 'exec'];
/** Compound commands and nesting around a command, as bash still runs it. */
const layers: Array<(c: string) => string> = [
  (c) => `( ${c} )`,
  (c) => `{ ${c}; }`,
  (c) => `echo "$( ${c} )"`,
  (c) => `echo $( ${c} )`,
  (c) => `if true; then ${c}; fi`,
  (c) => `for i in 1; do ${c}; done`,
  (c) => `g() { ${c}; }; g`,
  (c) => `true && ${c}`,
  (c) => `false || ${c}`,
  (c) => `${c} | cat`,
  (c) => `! ${c}`,
  (c) => `time ${c}`,
  (c) => `time { ${c}; }`,
  (c) => `coproc { ${c}; }; wait`,
  (c) => `while true; do ${c}; break; done`,
  (c) => `case a in a) ${c};; esac`,
  (c) => `${c} &\nwait`,
  (c) => `x=$( ${c} )`,
  (c) => `cat <( ${c} )`,
  (c) => `bash -c '${c.replace(/'/g, `'\\''`)}'`,
  (c) => `bash -c "${c.replace(/(["\\$`])/g, '\\$1')}"`,
  (c) => `eval "${c.replace(/(["\\$`])/g, '\\$1')}"`,
  (c) => `bash <<'EOF'\n${c}\nEOF\n`,
];
/** Ways to write the program name `rm` that bash reads as rm. */
const names = ['rm', '\\rm', '"rm"', "'rm'", "r''m", '"r"m', "$'rm'", "$'\\x72m'", '/bin/rm', '/usr/bin/rm', 'r\\\nm'];
/** Ways to separate words. */
const gaps = [' ', '  ', '\t', ' \\\n '];

describe('property: quotes, escapes, wrappers and nesting around a denied command', () => {
  it('never turn its verdict to allow where bash still runs the command they wrap', async () => {
    const g = gate();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.constantFrom(...gaps),
        fc.array(fc.constantFrom(...runners), { maxLength: 3 }),
        fc.constantFrom(...builtins),
        fc.boolean(),
        fc.array(fc.constantFrom(...layers.keys()), { maxLength: 3 }),
        async (name, gap, wrappers, builtin, assign, nesting) => {
          let line = `${name}${gap}x`;
          for (const w of wrappers) line = `${w}${gap}${line}`;
          if (builtin) line = `${builtin}${gap}${line}`;
          if (assign) line = `X=1${gap}${line}`;
          for (const i of nesting) line = layers[i](line);
          // Only lines bash really runs rm from count (a few combinations are not valid bash, e.g. `$( time { c; } )`).
          fc.pre(oracle(line).rm);
          const j = await judge(g, line);
          expect(j.action, line).not.toBe('allow');
        },
      ),
      { numRuns: 200 },
    );
  }, 120_000);
});
