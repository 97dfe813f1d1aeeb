import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssue, formatZodIssues, zodIssueField } from '../../src/core/index.js';

const Config = z.strictObject({
  engine: z.strictObject({ maxSteps: z.number().int().positive() }).optional(),
  name: z.string(),
});
const issueOf = (value: unknown) => Config.safeParse(value).error!.issues[0];

describe('formatZodIssue', () => {
  it('names the field as a dotted path, an unknown key by its own path, and the root by the given word', () => {
    expect(formatZodIssue(issueOf({ name: 'x', engine: { maxSteps: 0 } }))).toBe(
      'engine.maxSteps: Too small: expected number to be >0',
    );
    expect(formatZodIssue(issueOf({ name: 'x', engine: { maxSteps: 1, maxStep: 3 } }))).toBe(
      'engine.maxStep: unknown field "maxStep"',
    );
    expect(formatZodIssue(z.string().safeParse(1).error!.issues[0], '(task)')).toBe(
      '(task): Invalid input: expected string, received number',
    );
    expect(formatZodIssues(Config.safeParse({ engine: { maxSteps: -1 } }).error!, '(config)')).toBe(
      '- engine.maxSteps: Too small: expected number to be >0\n- name: Invalid input: expected string, received undefined',
    );
  });

  it('for any unknown key, names exactly that key (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== 'maxSteps'),
        (key) => {
          const issue = issueOf({ name: 'x', engine: { maxSteps: 1, [key]: 1 } });
          expect(zodIssueField(issue)).toBe(`engine.${key}`);
          expect(formatZodIssue(issue)).toBe(`engine.${key}: unknown field "${key}"`);
        },
      ),
    );
  });
});
