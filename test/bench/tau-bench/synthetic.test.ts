import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_LAYOUT } from '../../../src/bench/tau-bench/upstream-files.js';
import type { TauDomainName } from '../../../src/bench/tau-bench/index.js';
import { syntheticDomain } from './tau-test-domain.js';

/*
 * Our synthetic databases and tasks (test/fixtures/tau-bench, ours, not upstream data) against goldens made by
 * gen_goldens.py running the ORIGINAL Python tools and env on them: every tool's output on valid calls and on its
 * error branches, db hashes after each sequence, ground-truth hashes and rewards. Runs everywhere (no data dir).
 */
const fixtures = new URL('../../fixtures/tau-bench/', import.meta.url);
const read = (p: string): string => readFileSync(new URL(p, fixtures), 'utf8');
const cases = JSON.parse(read('cases.json')) as Record<TauDomainName, [string, string][][]>;
interface Scenario {
  observations: (string | null)[];
  reward: number;
  gt_db_hash: string | null;
  outputs: Record<string, boolean> | null;
}
const goldens = JSON.parse(read('goldens.json')) as {
  cases: Record<TauDomainName, { observations: (string | null)[]; db_hash: string }[]>;
  tasks: Record<TauDomainName, Record<'gt' | 'no_answer' | 'drop_first' | 'wrong_answer', Scenario>[]>;
};

for (const name of ['airline', 'retail'] as const) {
  describe(`tau-bench ${name} on synthetic data`, () => {
    const domain = syntheticDomain(name);

    it.each(cases[name].map((c, i) => [i, c] as const))(
      "case %i: every observation and the db hash equal the Python original's",
      (i, calls) => {
        const session = domain.session();
        const observations = calls.map(([tool, args]) => {
          const r = session.call(tool, args);
          if (r.crash !== undefined) return null; // the original's tool returned None
          expect(r.error).toBe(r.observation.startsWith('Error: ') || r.observation.startsWith('Unknown action '));
          return r.observation;
        });
        expect(observations).toEqual(goldens.cases[name][i].observations);
        expect(session.dbHash()).toBe(goldens.cases[name][i].db_hash);
      },
    );

    it("a fresh session hashes as the untouched database and sessions do not see each other's changes", () => {
      const a = domain.session();
      const b = domain.session();
      const before = b.dbHash();
      const [tool, args] = cases[name][cases[name].length - 1][0];
      a.call(tool, args);
      expect(b.dbHash()).toBe(before);
      expect(domain.session().dbHash()).toBe(before);
    });

    const tasks = domain.tasks('test');
    it.each(tasks.map((t) => [t.index, t] as const))(
      "task %i: rewards of gt, no answer, first action dropped, wrong answer equal the original's",
      (index, task) => {
        const want = goldens.tasks[name][index];
        const answer = `Here you go: ${task.outputs.join(' and ')}`;
        const scenarios = {
          gt: [task.actions, answer],
          no_answer: [task.actions, undefined],
          drop_first: [task.actions.slice(1), answer],
          wrong_answer: [task.actions, 'I cannot tell you'],
        } as const;
        for (const [key, [actions, message]] of Object.entries(scenarios)) {
          const session = domain.session();
          if (message !== undefined) session.respond(message);
          const observations: string[] = [];
          for (const a of actions) {
            const r = session.call(a.name, a.kwargsJson);
            observations.push(r.observation);
            if (r.terminate) break;
          }
          const reward = session.reward(task);
          const exp = want[key as keyof typeof want];
          expect({ key, observations, reward: reward.reward, outputs: reward.outputs ?? null }).toEqual({
            key,
            observations: exp.observations,
            reward: exp.reward,
            outputs: exp.outputs,
          });
          if (exp.gt_db_hash !== null) expect(reward.gtDbHash).toBe(exp.gt_db_hash);
        }
      },
    );

    it('tasks parse from the upstream format: implicit concatenation, escapes, comments, optional annotator', () => {
      if (name === 'airline') {
        expect(tasks[0].instruction).toBe(
          'Your user id is mia_li_1. You want to book HAT001 and then cancel "ABC123".',
        );
        expect(tasks[1].instruction).toBe('Noah\twants a certificate\nand one more bag. Caf\u00e9 \\o/');
        expect(tasks[3].annotator).toBeUndefined();
        expect(tasks[0].actions[0].kwargsJson).toContain('"amount": 46.0');
      }
      expect(domain.rules).toEqual(['one rule']);
      expect(domain.tools.map((t) => t.function.name)).toEqual([...UPSTREAM_LAYOUT[name].tools]);
    });
  });
}
