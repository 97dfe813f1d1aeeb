import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, cp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CALC_AGENT,
  CALC_SCRIPT,
  CONFIG_HOME,
  editManifest,
  qitos,
  recordCalcRun,
  tempDir,
} from '../helpers/cli-harness.js';
import { startFakeOpenAI } from '../../src/kit/testing/fake-llm-servers.js';
import { manifestSignature } from '../../src/trace/index.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const KEY = join(CONFIG_HOME, 'qitos', 'trace-key');

/** A trace recorded on "another machine": same agent and script, another config folder (so another trace key). */
async function foreignTrace(): Promise<string> {
  const elsewhere = join(dir, 'elsewhere-config');
  const r = await qitos(
    ['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', `scripted:${CALC_SCRIPT}`, '--json'],
    dir,
    { XDG_CONFIG_HOME: elsewhere },
  );
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out).traceDir as string;
}

/** Changes a manifest as someone who does not hold the key would (no new signature). */
async function tamper(traceDir: string, edit: (m: Record<string, any>) => void): Promise<void> {
  const p = join(traceDir, 'manifest.json');
  const m = JSON.parse(await readFile(p, 'utf8'));
  edit(m);
  await writeFile(p, JSON.stringify(m, null, 2));
}

/** An agent module that leaves a file behind when it is imported (so a test sees whether it ran). */
async function markingAgent(): Promise<{ module: string; marker: string }> {
  const module = join(dir, 'evil-agent.ts');
  const marker = join(dir, 'agent-was-imported');
  await writeFile(
    module,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, ` +
      `'x');\nexport { default } from ${JSON.stringify(CALC_AGENT)};\n`,
  );
  return { module, marker };
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('signed manifests', () => {
  it('a run signs its manifest with a key made on first use: 0600 in a 0700 folder; its own runs replay and fork flag-free', async () => {
    const { traceDir } = await recordCalcRun(dir);
    expect(JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8')).signature).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(KEY)).mode & 0o777).toBe(0o600);
    expect((await stat(join(CONFIG_HOME, 'qitos'))).mode & 0o777).toBe(0o700);
    const replay = await qitos(['replay', traceDir, '--json'], dir);
    expect(replay.code, replay.err).toBe(0);
    expect(replay.err).toBe('');
    const fork = await qitos(['fork', traceDir, '--at', '1', '--json'], dir);
    expect(fork.code, fork.err).toBe(0);
    // What replay and fork write is signed too: a fork of a fork needs no flag either.
    const again = await qitos(['fork', JSON.parse(fork.out).traceDir, '--at', '1', '--json'], dir);
    expect(again.code, again.err).toBe(0);
  });

  it(
    'a manifest signed on another machine, or edited since, is refused in one line naming the ' +
      'field; nothing it names is imported',
    async () => {
      const foreign = await foreignTrace();
      const m = JSON.parse(await readFile(join(foreign, 'manifest.json'), 'utf8'));
      const r = await qitos(['replay', foreign], dir);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `qitos: refusing to use what trace ${foreign} names, because its manifest signature does ` +
          `not match this machine's trace key (written elsewhere, or edited): agent.module ` +
          `(${m.agent.module}: code to import and run; or pass --agent); pass --trust-trace to use ` +
          `them\n`,
      );
      expect((await qitos(['fork', foreign, '--at', '1'], dir)).err).toMatch(/^qitos: refusing .* agent\.module /);

      const { traceDir: own } = await recordCalcRun(dir);
      const { module, marker } = await markingAgent();
      await tamper(own, (m) => (m.agent.module = module));
      const edited = await qitos(['replay', own], dir);
      expect(edited.code).toBe(2);
      expect(edited.err).toContain(`agent.module (${module}: code to import and run; or pass --agent)`);
      expect(await exists(marker)).toBe(false);
      // Removing the signature does not help.
      await tamper(own, (m) => delete m.signature);
      expect((await qitos(['replay', own], dir)).err).toMatch(/because its manifest is not signed: agent\.module/);
      expect(await exists(marker)).toBe(false);
    },
  );

  it('values from the trace cannot break the refusal line or hide in the terminal: control characters are escaped', async () => {
    const foreign = await foreignTrace();
    await tamper(foreign, (m) => (m.agent.module = 'innocent.ts\n\u001b[2Kqitos: all good\r'));
    const r = await qitos(['replay', foreign], dir);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(2);
    expect(r.err).toContain('agent.module (innocent.ts\\u000a\\u001b[2Kqitos: all good\\u000d: code to import and run');
  });

  it('--agent replaces the recorded module; --trust-trace prints what will run, then runs it', async () => {
    const foreign = await foreignTrace();
    const own = await qitos(['replay', foreign, '--agent', CALC_AGENT, '--json'], dir);
    expect(own.code, own.err).toBe(0);
    expect(JSON.parse(own.out).matched).toBe(true);
    const { module, marker } = await markingAgent();
    await tamper(foreign, (m) => (m.agent.module = module));
    const trusted = await qitos(['replay', foreign, '--trust-trace', '--json'], dir);
    expect(trusted.code, trusted.err).toBe(0);
    expect(trusted.err.split('\n').slice(0, 2).join('\n')).toBe(
      `--trust-trace: trace ${foreign} is used as it is (its manifest signature does not match ` +
        `this machine's trace key (written elsewhere, or edited)); it names:\n  ` +
        `agent.module: ${module} (code to import and run)`,
    );
    // The module named is not the one the run imported: that is said too.
    expect(trusted.err).toMatch(
      /\n--trust-trace: agent module .* changed since trace .* was recorded: sha-256 [0-9a-f]{64}, the run imported [0-9a-f]{64}; running it as it is now\n$/,
    );
    expect(await exists(marker)).toBe(true);
  });

  it('a signed trace whose steps or events were edited since is from elsewhere: --live-tools is refused naming the file', async () => {
    const { traceDir } = await recordCalcRun(dir);
    // The recorded model reply decides which tool call --live-tools runs: an edit there injects a call.
    const stepsPath = join(traceDir, 'steps.jsonl');
    await writeFile(stepsPath, (await readFile(stepsPath, 'utf8')).replace('17 * 23', '6 * 7'));
    const r = await qitos(['replay', traceDir, '--live-tools'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `qitos: refusing to use what trace ${traceDir} names, because its files do not match what ` +
        `its signature covers: steps.jsonl changed after it was signed: agent.module ` +
        `(${CALC_AGENT}: code to import and run; or pass --agent), --live-tools (the recorded tool ` +
        `calls: run again on this machine); pass --trust-trace to use them\n`,
    );
    const { traceDir: other } = await recordCalcRun(dir);
    await writeFile(
      join(other, 'events.jsonl'),
      (await readFile(join(other, 'events.jsonl'), 'utf8')) +
        '{"seq":99,"ts":0,"step":0,"phase":"init","type":"x","data":null}\n',
    );
    expect((await qitos(['fork', other, '--at', '1'], dir)).err).toMatch(
      /because its files do not match what its signature covers: events\.jsonl changed after it was signed: agent\.module/,
    );
    // A trace signed before traces were signed whole: its manifest alone is vouched for.
    const { traceDir: old } = await recordCalcRun(dir);
    await editManifest(old);
    await tamper(old, (m) => {
      delete m.files;
      m.signature = manifestSignature(m, Buffer.from(readFileSync(KEY, 'utf8').trim(), 'hex'));
    });
    expect((await qitos(['replay', old], dir)).err).toMatch(
      /because its signature covers only its manifest \(it was written before qitos signed traces whole\), so nothing vouches for its steps and events: agent\.module/,
    );
    // Without --live-tools, an edited trace replays (its recorded outputs are data; its module is named by the user).
    const served = await qitos(['replay', traceDir, '--agent', CALC_AGENT, '--allow-drift', '--json'], dir);
    expect(served.err).toBe('');
    expect(JSON.parse(served.out).replay.stopReason).toBe('final');
  });

  it(
    'a signed trace whose agent module file changed since the run is refused before the ' +
      'module is imported, naming both hashes',
    async () => {
      const module = join(dir, 'my-agent.ts');
      await writeFile(module, `export { default } from ${JSON.stringify(CALC_AGENT)};\n`);
      const run = await qitos(
        ['run', module, '--task', 'What is 17 * 23?', '--model', `scripted:${CALC_SCRIPT}`, '--json'],
        dir,
      );
      expect(run.code, run.err).toBe(0);
      const traceDir = JSON.parse(run.out).traceDir as string;
      const recorded = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8')).agent.sha256 as string;
      // Another file at the recorded path (the trace's signature is intact: it is this machine's own run).
      const marker = join(dir, 'agent-was-imported');
      await writeFile(
        module,
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, ` +
          `'x');\nexport { default } from ${JSON.stringify(CALC_AGENT)};\n`,
      );
      const now = createHash('sha256')
        .update(await readFile(module))
        .digest('hex');
      for (const args of [
        ['replay', traceDir],
        ['fork', traceDir, '--at', '1'],
      ]) {
        const r = await qitos(args, dir);
        expect(r.code).toBe(2);
        expect(r.err).toBe(
          `qitos: agent module my-agent.ts changed since trace ${traceDir} was recorded: ` +
            `sha-256 ${now}, the run imported ${recorded}; pass --allow-changed-agent to run it as it ` +
            `is now, or --agent to name a module\n`,
        );
        expect(await exists(marker)).toBe(false);
      }
      const allowed = await qitos(['replay', traceDir, '--allow-changed-agent', '--json'], dir);
      expect(allowed.code, allowed.err).toBe(0);
      expect(allowed.err).toBe(
        `--allow-changed-agent: agent module my-agent.ts changed since trace ${traceDir} was ` +
          `recorded: sha-256 ${now}, the run imported ${recorded}; running it as it is now\n`,
      );
      // A manifest without the hash (re-signed, as an old trace would be) cannot be checked: refused the same way.
      await editManifest(traceDir, (m) => delete m.agent.sha256);
      expect((await qitos(['replay', traceDir], dir)).err).toMatch(
        /does not record the sha-256 of its agent module my-agent\.ts, so it cannot be told apart from another file at that path .*; pass --allow-changed-agent/,
      );
      expect(await exists(marker)).toBe(false);
    },
  );

  it('a base URL, headers or key variable from elsewhere never receive the API key unless the user says so', async () => {
    const srv = await startFakeOpenAI([{ text: '{"final_answer": "391"}' }]);
    try {
      const { traceDir } = await recordCalcRun(dir);
      await tamper(
        traceDir,
        (m) =>
          (m.config.model = {
            id: 'openai:gpt-4o-mini',
            options: { baseURL: srv.url, apiKeyEnv: 'MY_KEY', headers: { 'x-leak': 'y' } },
          }),
      );
      const env = { MY_KEY: 'the-users-secret' };
      const refused = await qitos(['fork', traceDir, '--at', '1'], dir, env);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(
        `config.model.options.baseURL (${srv.url}: where model requests and your API key go; or pass --model)`,
      );
      expect(refused.err).toContain(
        'config.model.options.headers (x-leak: headers sent with every model request; or pass --model)',
      );
      expect(refused.err).toContain(
        'config.model.options.apiKeyEnv (MY_KEY: the variable whose key is sent; or pass --model)',
      );
      const script = join(dir, 'final.json');
      await writeFile(script, JSON.stringify([{ text: '{"final_answer": "391"}' }]));
      const own = await qitos(
        ['fork', traceDir, '--at', '1', '--agent', CALC_AGENT, '--model', `scripted:${script}`, '--json'],
        dir,
        env,
      );
      expect(own.code, own.err).toBe(0);
      expect(srv.requests).toHaveLength(0);
      const trusted = await qitos(['fork', traceDir, '--at', '1', '--trust-trace', '--json'], dir, env);
      expect(trusted.code, trusted.err).toBe(0);
      expect(trusted.err).toContain(
        `  config.model.options.baseURL: ${srv.url} (where model requests and your API key go)\n`,
      );
      expect(srv.requests).toHaveLength(1);
      expect(srv.requests[0].headers.authorization).toBe('Bearer the-users-secret');
    } finally {
      await srv.close();
    }
  });

  it('MCP servers, a host workspace, skill folders and a trace folder from elsewhere are refused; --live-tools too', async () => {
    const foreign = await foreignTrace();
    const marker = join(dir, 'mcp-server-started');
    await tamper(foreign, (m) => {
      m.config.mcp = {
        evil: {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`],
        },
        far: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
      };
      m.config.env = { type: 'host', root: '/', allowEnv: ['AWS_SECRET_ACCESS_KEY'], sandbox: 'none' };
      m.config.skills = { roots: ['/home'] };
      m.config.trace = { dir: '../../somewhere' };
    });
    const r = await qitos(['replay', foreign, '--agent', CALC_AGENT, '--live-tools'], dir);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(2); // one line
    for (const field of [
      `config.mcp.evil.command (${process.execPath} -e`,
      'config.mcp.far.url (http://127.0.0.1:9/mcp: an MCP server to contact)',
      'config.env (/; commands see AWS_SECRET_ACCESS_KEY; no sandbox: the host folder tools ' +
        'read, write and run commands in; or pass --workspace)',
      'config.skills.roots (/home: folders read and shown to the model)',
      'config.trace.dir (../../somewhere: where the new trace is written; or pass --trace-dir)',
      '--live-tools (the recorded tool calls: run again on this machine)',
    ])
      expect(r.err).toContain(field);
    expect(r.err).not.toContain('agent.module');
    expect(await exists(marker)).toBe(false);
    // The flags that replace a field take it off the list.
    const rest = await qitos(
      ['replay', foreign, '--agent', CALC_AGENT, '--workspace', dir, '--trace-dir', 'mine'],
      dir,
    );
    expect(rest.err).not.toMatch(/config\.env|config\.trace\.dir|--live-tools/);
    expect(rest.err).toMatch(/config\.mcp\.evil\.command .*config\.skills\.roots/);
  });

  it("without a key nothing counts as this machine's; a key others can read is refused with the fix", async () => {
    const { traceDir } = await recordCalcRun(dir);
    await rm(KEY);
    expect((await qitos(['replay', traceDir], dir)).err).toMatch(
      /because this machine has no trace key yet \(.*trace-key\): agent\.module/,
    );
    // Neither XDG_CONFIG_HOME nor HOME: no key at all.
    expect((await qitos(['replay', traceDir], dir, { XDG_CONFIG_HOME: '' })).err).toMatch(
      /because it cannot be checked \(no trace key: neither XDG_CONFIG_HOME nor HOME is set\)/,
    );
    const fresh = (await recordCalcRun(dir)).traceDir;
    await chmod(KEY, 0o644);
    const loose = await qitos(['replay', fresh], dir);
    expect(loose.err).toBe(`qitos: the trace key ${KEY} can be read by other users (mode 644): run chmod 600 ${KEY}\n`);
    await chmod(KEY, 0o600);
    // A trace copied to another folder of the same machine stays its own.
    await cp(fresh, join(dir, 'copied'), { recursive: true });
    expect((await qitos(['replay', join(dir, 'copied'), '--json'], dir)).code).toBe(0);
  });
});
