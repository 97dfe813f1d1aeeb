import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { terminalBlock, terminalText } from '../../src/app/terminal-text.js';
import { formatStepLine } from '../../src/cli/live-view.js';
import { CALC_AGENT, qitos, tempDir } from '../helpers/cli-harness.js';
import { makeZip, skillMd } from '../helpers/zip-writer.js';

/** Every character a terminal acts on instead of showing (tab and newline aside), and the bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const CLEAR = '\u001b[2J';
const RLO = '\u202e';

/** Strings rich in the characters that matter: controls, ESC sequences, C1, bidi controls, plain text. */
const hostile = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        '\u001b',
        '\u001b[2J',
        '\u001b]0;title\u0007',
        '\u009b31m',
        '\r',
        '\n',
        '\r\n',
        '\t',
        '\u007f',
        '\u0000',
        RLO,
        '\u2066',
        '\u200f',
        '\u061c',
        '\u00e9',
        '\u4e2d',
      ),
      fc.integer({ min: 0, max: 0x2100 }).map((c) => String.fromCharCode(c)),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('terminalText', () => {
  it('leaves no character a terminal acts on, keeps newlines only in a block, and changes nothing else (property)', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const line = terminalText(text);
        expect(ACTS.test(line)).toBe(false);
        expect(line).not.toContain('\n');
        const block = terminalBlock(text);
        expect(ACTS.test(block.replace(/\r?\n/g, ''))).toBe(false);
        expect(block.split('\n').length).toBe(text.split('\n').length);
        // Escapes are reversible: undoing them gives the text back, so nothing is lost or merged.
        const undo = (s: string) =>
          s.replace(/\\u([0-9a-f]{4})/g, (m, hex: string) =>
            ACTS.test(String.fromCharCode(parseInt(hex, 16))) ? String.fromCharCode(parseInt(hex, 16)) : m,
          );
        if (!/\\u[0-9a-f]{4}/.test(text)) expect(undo(line)).toBe(text);
        if (!ACTS.test(text)) expect(line).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('shows ESC, C1, DEL and bidi overrides visibly', () => {
    expect(terminalText(`a${CLEAR}b`)).toBe('a\\u001b[2Jb');
    expect(terminalText(`x\u009b2Jy\u007f`)).toBe('x\\u009b2Jy\\u007f');
    expect(terminalText(`invoice${RLO}fdp.exe`)).toBe('invoice\\u202efdp.exe');
    expect(terminalText('one\ntwo\r\n')).toBe('one\\u000atwo\\u000d\\u000a');
    expect(terminalBlock('one\ntwo\r\nthree\rfour\ttab')).toBe('one\ntwo\r\nthree\\u000dfour\ttab');
  });
});

describe('untrusted text the CLI prints', () => {
  it('a skill ZIP refusal naming a hostile entry cannot clear the screen', async () => {
    const zip = join(dir, 'evil.zip');
    await writeFile(
      zip,
      makeZip([
        { name: 'SKILL.md', data: skillMd('evil', 'x') },
        { name: `a${CLEAR}${RLO}b.txt`, data: 'x', mode: 0o120777 },
      ]),
    );
    const r = await qitos(['skills', 'install', zip, '--root', join(dir, 'skills')], dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('skill ZIP refused: entry "a\\u001b[2J\\u202eb.txt"');
    expect(ACTS.test(r.err.replace(/\n$/, ''))).toBe(false);
  });

  it('step lines and the final answer from the model print escaped, one line each', async () => {
    const answer = `done${CLEAR}\u001b]0;pwned\u0007${RLO}\nsecond line`;
    await writeFile(join(dir, 'replies.json'), JSON.stringify([{ text: JSON.stringify({ final_answer: answer }) }]));
    const r = await qitos(['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${join(dir, 'replies.json')}`], dir);
    expect(r.code, r.err).toBe(0);
    expect(ACTS.test(r.out.replace(/\n/g, ''))).toBe(false);
    expect(r.out).toMatch(/^ +1 +final: done\\u001b\[2J\\u001b\]0;pwned\\u0007\\u202e⏎ second line/m);
    expect(r.out).toMatch(/^final: +done\\u001b\[2J/m);
    expect(r.out).not.toMatch(/^second line/m);
  });

  it("a tool's output in a step line is escaped", () => {
    const line = formatStepLine({
      step: 1,
      decision: { mode: 'act', actions: [{ id: 'c1', name: `bash${CLEAR}`, args: { cmd: `x${RLO}` } }] },
      results: [{ id: 'c1', name: 'bash', status: 'success', output: `out${CLEAR}\u009b1m`, latencyMs: 1 }],
      durationMs: 5,
    } as never);
    expect(ACTS.test(line)).toBe(false);
    expect(line).toContain('bash\\u001b[2J(cmd="x\\u202e") -> out\\u001b[2J\\u009b1m');
  });
});
