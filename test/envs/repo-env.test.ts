import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine, decide, type Task } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { readTrace } from '../../src/trace/index.js';
import { RepoEnv, type RepoOps } from '../../src/envs/index.js';
import { bashTool, repoDiffTool, writeTool } from '../../src/kit/tools/index.js';
import { fileTree } from '../helpers/file-tree.js';
import { git, makeRepo, repoFingerprint, writeFiles } from '../helpers/git-fixtures.js';
import { ModelPathAgent, ScriptAgent, tempDir } from '../helpers/kernel-fixtures.js';
import { callTool } from '../helpers/qitos-env-fixtures.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
const task = (id = 't', extra: Partial<Task> = {}): Task => ({
  id,
  objective: 'edit',
  inputs: {},
  resources: {},
  budget: {},
  successCriteria: [],
  metadata: {},
  ...extra,
});

function repo(
  commits: Array<Record<string, string>> = [
    { 'a.txt': 'one\n', 'src/m.py': 'print(1)\n', 'old.txt': 'old\n', '.gitignore': '*.log\nbuild/\n' },
  ],
) {
  const r = makeRepo(commits);
  cleanups.push(r.cleanup);
  return r;
}
function env(options: ConstructorParameters<typeof RepoEnv>[0]) {
  const e = new RepoEnv(options);
  cleanups.push(() => e.dispose());
  return e;
}

describe('RepoEnv', () => {
  it('checks out the base commit into a temporary workspace with file and process ops; the diff is a patch of every change', async () => {
    const src = repo();
    const before = repoFingerprint(src.dir);
    const e = env({ repo: src.dir });
    await e.setup(task());
    expect(e.baseCommit).toBe(src.commits[0]);
    expect(fileTree(e.root)).toEqual({
      '.gitignore': '*.log\nbuild/\n',
      'a.txt': 'one\n',
      'old.txt': 'old\n',
      'src/m.py': 'print(1)\n',
    });
    const files = e.ops('file')!;
    await files.writeText('a.txt', 'one\ntwo\n');
    await files.writeText('new/b.txt', 'bee\n');
    await files.remove('old.txt');
    await files.writeText('run.log', 'ignored\n');
    const r = await e.ops('process')!.run('git mv --help >/dev/null 2>&1; mv src/m.py src/main.py && pwd');
    expect(r.stdout.trim()).toBe(e.root);
    const d = await e.diff();
    expect(d.files).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'new/b.txt', status: 'added' },
      { path: 'old.txt', status: 'deleted' },
      { path: 'src/main.py', status: 'renamed', from: 'src/m.py' },
    ]);
    expect(d.truncated).toBe(false);
    expect(d.patch).toContain('diff --git a/a.txt b/a.txt');
    expect(d.patch).toContain('+two');
    expect(d.patch).not.toContain('run.log');
    // The patch is real: it applies to the source at the base commit.
    writeFileSync(path.join(src.dir, '..', 'p.diff'), d.patch);
    expect(() => git(src.dir, 'apply', '--check', path.join(src.dir, '..', 'p.diff'))).not.toThrow();
    // The workspace holds no repository: nothing the agent does in it reaches the source's refs or objects.
    expect(existsSync(path.join(e.root, '.git'))).toBe(false);
    const inWs = await e.ops('process')!.run('git status 2>&1; echo "exit $?"');
    expect(inWs.stdout).toMatch(/not a git repository[\s\S]*exit 128/);
    expect(repoFingerprint(src.dir)).toBe(before);
  });

  it('resets between tasks: each task starts from its own commit, with nothing left from the last one', async () => {
    const src = repo([{ 'v.txt': 'v1\n' }, { 'v.txt': 'v2\n', 'added.txt': 'x\n' }]);
    const e = env({ repo: src.dir, ref: (t) => t.inputs.commit as string, keep: true });
    await e.setup(task('a', { inputs: { commit: 'v1' } }));
    expect(fileTree(e.root)).toEqual({ 'v.txt': 'v1\n' });
    const firstRoot = e.root;
    writeFiles(e.root, { 'v.txt': 'changed\n', 'junk/x.txt': 'junk', 'build/out.bin': 'ignored?' });
    mkdirSync(path.join(e.root, '.git'));
    writeFileSync(path.join(e.root, '.git', 'config'), '[core]\n');
    e.close();
    expect(existsSync(firstRoot)).toBe(true); // keep: true leaves it for a scorer
    await e.setup(task('b', { inputs: { commit: src.commits[1] } }));
    expect(e.root).toBe(firstRoot);
    expect(fileTree(e.root)).toEqual({ 'added.txt': 'x\n', 'v.txt': 'v2\n' });
    expect((await e.diff()).files).toEqual([]);
    // An explicit reset does the same within a run.
    writeFiles(e.root, { 'v.txt': 'again\n', 'n.txt': 'n' });
    await (e.ops('repo') as RepoOps).reset();
    expect(fileTree(e.root)).toEqual({ 'added.txt': 'x\n', 'v.txt': 'v2\n' });
    e.close();
    e.dispose();
    expect(existsSync(firstRoot)).toBe(false);
  });

  it('runs in the engine: the trace gets artifacts/repo.diff, the env keeps lastDiff, close removes the workspace', async () => {
    const src = repo();
    const e = env({ repo: src.dir });
    const dir = await tempDir();
    const model = new ScriptedModel([
      '{"action": {"name": "write", "args": {"path": "a.txt", "content": "ONE\\n"}}}',
      '{"action": {"name": "repo_diff", "args": {}}}',
      '{"final_answer": "done"}',
    ]);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [writeTool(), repoDiffTool(), bashTool()] });
    const r = await new Engine({ agent, env: e, trace: { dir } }).run(task());
    expect(r.stopReason, r.stopMessage).toBe('final');
    const t = await readTrace(r.traceDir!);
    expect(t.steps[1].results[0].output).toMatch(
      /^1 changed file against [0-9a-f]{12}:\nmodified +a\.txt\n\ndiff --git a\/a\.txt b\/a\.txt/,
    );
    const artifact = readFileSync(path.join(r.traceDir!, 'artifacts', 'repo.diff'), 'utf8');
    expect(artifact).toContain('-one\n+ONE');
    expect(t.manifest.artifacts).toEqual([{ name: 'repo.diff', bytes: Buffer.byteLength(artifact) }]);
    expect(e.lastDiff?.files).toEqual([{ path: 'a.txt', status: 'modified' }]);
    expect(() => e.root).toThrow(/has no workspace/);
    expect(e.ops('file')).toBeUndefined();
  });

  it('git run by the env never runs what the workspace holds: filters, hooks and a planted .git are inert', async () => {
    const src = repo();
    // The agent's commands run unsandboxed here, so its planted filters can touch the marker outside the workspace
    // (the bubblewrap sandbox would stop them first, and the test would not see the env's own git).
    const e = env({ repo: src.dir, host: { sandbox: 'none' } });
    await e.setup(task());
    const marker = path.join(path.dirname(e.root), 'pwned');
    // The agent makes the workspace a repository of its own, with a filter driver, an fsmonitor and hooks that
    // would run if the env's git used it (as it would if the env discovered the repository from the workspace).
    writeFiles(e.root, { '.gitattributes': '* filter=evil diff=evil\n', 'a.txt': 'changed\n' });
    const planted = await e
      .ops('process')!
      .run(
        `git init -q . && git config filter.evil.clean "touch ${marker}" && git config filter.evil.smudge "touch ${marker}" && ` +
          `git config diff.evil.textconv "touch ${marker}" && git config core.fsmonitor "touch ${marker}" && ` +
          `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/post-checkout && chmod +x ` +
          `.git/hooks/post-checkout && git add -A && echo planted`,
      );
    expect(planted.stdout.trim(), planted.stderr).toBe('planted');
    // The planted repository is live: the agent's own git runs the filter (so the test would catch an env that used it).
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const d = await e.diff();
    // (the fsmonitor hook, run by the agent's git, also touched files named after its arguments: agent changes too)
    expect(d.files.map((f) => f.path)).toEqual(expect.arrayContaining(['.gitattributes', 'a.txt']));
    expect(d.files.some((f) => f.path.startsWith('.git/'))).toBe(false);
    await e.reset();
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(e.root, '.git'))).toBe(false);
  });

  it('says what is wrong: a bad ref, a folder that is not a repository, no git, a second concurrent run', async () => {
    const src = repo();
    await expect(env({ repo: src.dir, ref: 'nope' }).setup(task())).rejects.toThrow(
      /^RepoEnv: "nope" is not a commit of /,
    );
    await expect(env({ repo: src.dir, ref: '--upload-pack=x' }).setup(task())).rejects.toThrow(
      'RepoEnv ref "--upload-pack=x" is not a ref, tag or commit id',
    );
    const plain = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-plain-')));
    cleanups.push(() => rmSync(plain, { recursive: true, force: true }));
    await expect(env({ repo: plain }).setup(task())).rejects.toThrow(
      /^RepoEnv cannot read the repository .*qitos-plain-/,
    );
    expect(() => new RepoEnv({ repo: path.join(plain, 'missing') })).toThrow(/is not a folder/);
    await expect(env({ repo: src.dir, git: '/nonexistent/git' }).setup(task())).rejects.toThrow(
      'RepoEnv needs git: "/nonexistent/git" was not found on PATH',
    );
    const busy = env({ repo: src.dir });
    await busy.setup(task());
    await expect(busy.setup(task())).rejects.toThrow(/already in use by a run/);
    // In the engine, a setup failure ends the run with its reason and still leaves a trace.
    const dir = await tempDir();
    const r = await new Engine({
      agent: new ScriptAgent([decide.final('x')]),
      env: env({ repo: src.dir, ref: 'v9' }),
      trace: { dir },
    }).run(task());
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/RepoEnv: "v9" is not a commit of/);
  });

  it('cuts a patch over maxDiffBytes and says so', async () => {
    const src = repo();
    const e = env({ repo: src.dir, maxDiffBytes: 200 });
    await e.setup(task());
    writeFiles(e.root, { 'big.txt': 'x'.repeat(5000) });
    const d = await e.diff();
    expect(d.truncated).toBe(true);
    expect(Buffer.byteLength(d.patch)).toBeLessThanOrEqual(200);
    const [a] = await e.artifacts();
    expect(String(a.content)).toMatch(/\[the diff was cut at 200 bytes\]\n$/);
    const seen = await callTool(repoDiffTool(), {}, e);
    expect(seen.seen).toContain('[the diff is larger than the env keeps; this is its start]');
    expect((await callTool(repoDiffTool(), { stat: true }, e)).seen).toMatch(
      /^1 changed file against [0-9a-f]{12}:\nadded +big\.txt$/,
    );
  });

  it('property: applying the diff to a fresh checkout of the base rebuilds the workspace', async () => {
    const src = repo([{ 'a.txt': 'a\n', 'd/b.txt': 'b\n', 'd/e/c.txt': 'c\n' }]);
    const e = env({ repo: src.dir, keep: true });
    const check = env({ repo: src.dir, keep: true });
    const name = fc.constantFrom(
      'a.txt',
      'd/b.txt',
      'd/e/c.txt',
      'n.txt',
      'd/n2.txt',
      'x/y/z.md',
      'sp ace.txt',
      'ünï.txt',
    );
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), file: name, text: fc.string({ maxLength: 30 }) }),
      fc.record({ kind: fc.constant('remove' as const), file: name }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        try {
          await e.setup(task());
          const files = e.ops('file')!;
          for (const o of ops) {
            if (o.kind === 'write') await files.writeText(o.file, o.text);
            else if (await files.stat(o.file)) await files.remove(o.file);
          }
          const want = fileTree(e.root);
          const d = await e.diff();
          await check.setup(task());
          if (d.patch) {
            // Outside any repository, git apply is a plain patch tool (the patch comes on stdin: the agent's
            // commands run in a sandbox that sees only the workspace).
            const applied = await check.ops('process')!.run('git apply', { stdin: d.patch });
            expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
          }
          expect(fileTree(check.root)).toEqual(want);
        } finally {
          e.close();
          check.close();
        }
      }),
      { numRuns: 12 },
    );
  });
});
