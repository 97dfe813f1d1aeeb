// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline/promises';
import type { ApprovalReply, ApprovalRequest, Approver } from '../core/index.js';

/**
 * Asks at the terminal (`qitos run` on a TTY): one prompt per ask, on stderr, one at a time when tools run in
 * parallel. `o` runs the call once, `a` always (the same input of the same tool, for the rest of this run), `r`
 * rejects it and asks for a message the model sees. A workflow interrupt node's ask takes a line as its variable's
 * value (an empty line rejects). The prompt goes away when the ask times out or the run stops.
 */
export function ttyApprover(input: Readable, write: (text: string) => void): Approver {
  let turn: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const mine = turn.then(() => askAtTerminal(input, write, request, signal));
    turn = mine.catch(() => undefined); // the next prompt waits for this one, however it ended
    return mine;
  };
}

async function askAtTerminal(
  input: Readable,
  write: (text: string) => void,
  request: ApprovalRequest,
  signal: AbortSignal,
): Promise<ApprovalReply> {
  signal.throwIfAborted();
  const rl = createInterface({ input, terminal: false });
  try {
    const rule = request.rule
      ? `rule ${request.rule.key} ${JSON.stringify(request.rule.pattern)}: ${request.rule.action}`
      : 'no rule';
    const secs = Math.round((request.expiresAt - Date.now()) / 1000);
    if (request.input) {
      // A workflow interrupt node: the answer is the variable's value.
      write(`\n? ${request.title}\n  value of "${request.input.variable}" (an empty line rejects) (${secs}s) > `);
      const value = (await rl.question('', { signal })).trim();
      return value ? { decision: 'once', by: 'tty', message: value } : { decision: 'reject', by: 'tty' };
    }
    write(`\n? permission (${rule}): ${request.title}\n`);
    for (let tries = 0; tries < 3; tries++) {
      write(`  [o]nce  [a]lways (this input, this run)  [r]eject  (${secs}s) > `);
      const answer = (await rl.question('', { signal })).trim().toLowerCase();
      if (answer === 'o' || answer === 'once' || answer === 'y' || answer === 'yes')
        return { decision: 'once', by: 'tty' };
      if (answer === 'a' || answer === 'always') return { decision: 'always', by: 'tty' };
      if (answer === 'r' || answer === 'reject' || answer === 'n' || answer === 'no') {
        write('  message for the agent (empty for none) > ');
        const message = (await rl.question('', { signal })).trim();
        return { decision: 'reject', by: 'tty', ...(message ? { message } : {}) };
      }
      write(`  "${answer}" is not an answer: type o, a or r\n`);
    }
    return { decision: 'reject', by: 'tty', message: 'no valid answer at the terminal' };
  } catch (err) {
    if (signal.aborted) write('\n  (the ask ended: timed out or the run stopped)\n');
    throw err;
  } finally {
    rl.close();
  }
}
