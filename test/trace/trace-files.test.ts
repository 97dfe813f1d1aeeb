import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Engine, decide, defineTool, type Env } from '../../src/index.js';
import { TraceWriter, readTrace } from '../../src/trace/index.js';
import { ScriptAgent, addTool, tempDir } from '../helpers/kernel-fixtures.js';

const key = Buffer.alloc(32, 3);

/** A tool that runs a child run traced under `<trace>/threads`, as a workflow's fork does. */
const childTool = defineTool({
  id: 'child',
  description: 'runs a child run',
  parameters: z.object({}),
  execute: async (_a, ctx) => {
    const agent = new ScriptAgent([decide.call('add', { a: 1, b: 2 }), decide.final('3')], { tools: [addTool] });
    const r = await new Engine({ agent, trace: { dir: join(ctx.traceDir!, 'threads') }, parent: ctx.childLink() }).run(
      'child',
    );
    return r.finalResult ?? '';
  },
});

/** An env that leaves `repo.diff`, as a RepoEnv does. */
const diffEnv: Env = {
  name: 'repo',
  ops: (() => undefined) as Env['ops'],
  artifacts: () => [{ name: 'repo.diff', content: 'diff --git a/x b/x\n' }],
};

/** A signed run with a child trace under threads/ and an artifact; returns its folder and the child's name. */
async function signedRun(): Promise<{ dir: string; child: string }> {
  const agent = new ScriptAgent([decide.call('child'), decide.final('done')], { tools: [childTool] });
  const r = await new Engine({ agent, env: diffEnv, trace: { dir: await tempDir(), signingKey: key } }).run('parent');
  expect(r.stopReason).toBe('final');
  const [child] = readdirSync(join(r.traceDir!, 'threads'));
  return { dir: r.traceDir!, child };
}

const check = async (dir: string) => {
  const t = await readTrace(dir, { key });
  return [t.signature, t.signatureProblem];
};

describe('a trace is signed whole', () => {
  it('the signature covers every file: the JSONL files, artifacts and child traces under threads/', async () => {
    const { dir, child } = await signedRun();
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(Object.keys(m.files).sort()).toEqual([
      'artifacts/repo.diff',
      'events.jsonl',
      'steps.jsonl',
      `threads/${child}/manifest.json`,
    ]);
    // The child (written without a key) lists its own files: the parent's digest of its manifest covers them.
    expect(
      Object.keys(JSON.parse(readFileSync(join(dir, 'threads', child, 'manifest.json'), 'utf8')).files).sort(),
    ).toEqual(['events.jsonl', 'steps.jsonl']);
    expect(await check(dir)).toEqual(['signed', undefined]);
    expect((await readTrace(dir, { key: Buffer.alloc(32, 4) })).signature).toBe('mismatch');
  });

  it("an edit of any file after signing is found, naming the file: steps, events, an artifact, a child trace's files", async () => {
    const edits: Array<[string, (dir: string, child: string) => void, string]> = [
      [
        'steps.jsonl',
        (d) =>
          writeFileSync(
            join(d, 'steps.jsonl'),
            readFileSync(join(d, 'steps.jsonl'), 'utf8').replace('"child"', '"bash"'),
          ),
        'steps.jsonl changed after it was signed',
      ],
      [
        'events.jsonl',
        (d) =>
          appendFileSync(join(d, 'events.jsonl'), '{"seq":99,"ts":0,"step":0,"phase":"init","type":"x","data":null}\n'),
        'events.jsonl changed after it was signed',
      ],
      [
        'an artifact',
        (d) => writeFileSync(join(d, 'artifacts', 'repo.diff'), 'rm -rf\n'),
        'artifacts/repo.diff changed after it was signed',
      ],
      [
        'a file added',
        (d) => writeFileSync(join(d, 'artifacts', 'extra.sh'), 'x'),
        'artifacts/extra.sh was added after it was signed',
      ],
      ['a file removed', (d) => rmSync(join(d, 'events.jsonl')), 'events.jsonl was removed after it was signed'],
      [
        'a symbolic link',
        (d) => symlinkSync('/etc/passwd', join(d, 'artifacts', 'link')),
        'artifacts/link is not a plain file or folder',
      ],
      [
        "a child's steps",
        (d, c) => appendFileSync(join(d, 'threads', c, 'steps.jsonl'), '\n'),
        'threads/{child}/steps.jsonl changed after it was signed',
      ],
      [
        "a child's manifest",
        (d, c) =>
          writeFileSync(
            join(d, 'threads', c, 'manifest.json'),
            readFileSync(join(d, 'threads', c, 'manifest.json'), 'utf8').replace('"completed"', '"failed"'),
          ),
        'threads/{child}/manifest.json changed after it was signed',
      ],
      [
        'a child added',
        (d) => (mkdirSync(join(d, 'threads', 'new')), writeFileSync(join(d, 'threads', 'new', 'manifest.json'), '{}')),
        'threads/new/manifest.json was added after it was signed',
      ],
      [
        'a file in a child',
        (d, c) => writeFileSync(join(d, 'threads', c, 'notes.txt'), 'x'),
        'threads/{child}/notes.txt was added after it was signed',
      ],
    ];
    for (const [what, edit, problem] of edits) {
      const { dir, child } = await signedRun();
      edit(dir, child);
      expect(await check(dir), what).toEqual(['files-changed', problem.replace('{child}', child)]);
    }
  });

  it("a child trace's manifest changed on disk while the parent runs is found: the parent signs what the child wrote", async () => {
    // The child's writer hands the digest of each manifest it writes to the parent's (ParentLink.traced), so the
    // parent does not read its children back: a change made between the two is caught, not signed.
    const tamper = defineTool({
      id: 'child',
      description: 'runs a child run, then edits its manifest',
      parameters: z.object({}),
      execute: async (_a, ctx) => {
        const agent = new ScriptAgent([decide.final('3')], {});
        const r = await new Engine({
          agent,
          trace: { dir: join(ctx.traceDir!, 'threads') },
          parent: ctx.childLink(),
        }).run('child');
        appendFileSync(join(r.traceDir!, 'manifest.json'), ' ');
        return r.finalResult ?? '';
      },
    });
    const agent = new ScriptAgent([decide.call('child'), decide.final('done')], { tools: [tamper] });
    const r = await new Engine({ agent, trace: { dir: await tempDir(), signingKey: key } }).run('parent');
    const [child] = readdirSync(join(r.traceDir!, 'threads'));
    expect(await check(r.traceDir!)).toEqual([
      'files-changed',
      `threads/${child}/manifest.json changed after it was signed`,
    ]);
  });

  it('any change of a byte of any file makes it not signed (property)', async () => {
    const { dir } = await signedRun();
    const files = ['steps.jsonl', 'events.jsonl', 'artifacts/repo.diff'];
    const original = Object.fromEntries(files.map((f) => [f, readFileSync(join(dir, f))]));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...files), fc.nat(), fc.integer({ min: 1, max: 255 }), async (file, at, xor) => {
        const bytes = Buffer.from(original[file]);
        bytes[at % bytes.length] ^= xor;
        writeFileSync(join(dir, file), bytes);
        try {
          expect(
            (await readTrace(dir, { key, validateSteps: false }).catch(() => ({ signature: 'unreadable' }))).signature,
          ).not.toBe('signed');
        } finally {
          writeFileSync(join(dir, file), original[file]);
        }
      }),
      { numRuns: 40 },
    );
    expect((await readTrace(dir, { key })).signature).toBe('signed');
  });

  it('a run that never finished (its manifest written at start) does not check: its files grew since', async () => {
    const dir = join(await tempDir(), 'run');
    const w = new TraceWriter(dir, { signingKey: key });
    const { dir: done } = await signedRun();
    const m = JSON.parse(readFileSync(join(done, 'manifest.json'), 'utf8'));
    w.start({ ...m, status: 'running', summary: null });
    expect(await check(dir)).toEqual(['signed', undefined]);
    w.event({ ts: 0, step: 1, phase: 'act', type: 'x', data: null });
    w.flush();
    expect(await check(dir)).toEqual(['files-changed', 'events.jsonl changed after it was signed']);
  });

  it("a writer's first manifest lists what a folder held before it started; in a folder it made, its own files", async () => {
    const { dir: done } = await signedRun();
    const m = JSON.parse(readFileSync(join(done, 'manifest.json'), 'utf8'));
    const existing = join(await tempDir(), 'run');
    mkdirSync(existing);
    writeFileSync(join(existing, 'notes.txt'), 'left here');
    new TraceWriter(existing, { signingKey: key }).start({ ...m, status: 'running', summary: null });
    const listed = (d: string) => Object.keys(JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')).files).sort();
    expect(listed(existing)).toEqual(['events.jsonl', 'notes.txt', 'steps.jsonl']);
    expect(await check(existing)).toEqual(['signed', undefined]);
    const made = join(await tempDir(), 'new', 'run');
    new TraceWriter(made, { signingKey: key }).start({ ...m, status: 'running', summary: null });
    expect(listed(made)).toEqual(['events.jsonl', 'steps.jsonl']);
    expect(await check(made)).toEqual(['signed', undefined]);
  });

  it('a manifest signed before traces were signed whole (no file digests) is manifest-only', async () => {
    const { dir } = await signedRun();
    const p = join(dir, 'manifest.json');
    const { files: _files, signature: _s, ...old } = JSON.parse(readFileSync(p, 'utf8'));
    const { manifestSignature } = await import('../../src/trace/index.js');
    writeFileSync(p, JSON.stringify({ ...old, signature: manifestSignature(old, key) }));
    expect(await check(dir)).toEqual(['manifest-only', undefined]);
  });
});
