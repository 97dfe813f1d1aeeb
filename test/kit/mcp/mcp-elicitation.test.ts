import { describe, expect, it } from 'vitest';
import { answerElicitation } from '../../../src/kit/mcp/index.js';

const form = {
  mode: 'form' as const,
  message: 'Who?',
  requestedSchema: {
    type: 'object' as const,
    properties: { name: { type: 'string' as const }, count: { type: 'integer' as const, default: 3 } },
    required: ['name'],
  },
};

describe('elicitation answers from the configured policy', () => {
  it('declines by default and does what the policy says', () => {
    expect(answerElicitation(form, undefined)).toEqual({ result: { action: 'decline' } });
    expect(answerElicitation(form, { action: 'cancel' })).toEqual({ result: { action: 'cancel' } });
  });

  it('accepts with the configured content over the schema defaults, only fields the schema names', () => {
    expect(answerElicitation(form, { action: 'accept', content: { name: 'qitos', extra: 'dropped' } })).toEqual({
      result: { action: 'accept', content: { name: 'qitos', count: 3 } },
    });
  });

  it('declines, saying why, when the configured answer does not fit the schema', () => {
    const missing = answerElicitation(form, { action: 'accept' });
    expect(missing.result).toEqual({ action: 'decline' });
    expect(missing.note).toMatch(/does not fit the requested schema: name: /);
    const wrongType = answerElicitation(form, { action: 'accept', content: { name: 'x', count: 'many' } });
    expect(wrongType.result).toEqual({ action: 'decline' });
    expect(wrongType.note).toMatch(/count/);
  });

  it('never accepts a URL-mode request', () => {
    expect(
      answerElicitation(
        { mode: 'url', message: 'Log in', elicitationId: 'e1', url: 'https://example.com' },
        { action: 'accept' },
      ),
    ).toEqual({ result: { action: 'decline' }, note: 'URL-mode elicitation is never accepted' });
  });
});
