import { pyCalculate } from './py/py-calc.js';
import { pyIn, pyIter } from './py/py-ops.js';
import { PyException } from './py/py-value.js';
import type { TauToolImpl } from './tau-tool.js';

const ALLOWED = '0123456789+-*/(). ';

/** `calculate`, the same in both domains. */
export const calculateTool: TauToolImpl = {
  name: 'calculate',
  params: ['expression'],
  run(_data, [expression]) {
    if (typeof expression === 'string') return pyCalculate(expression);
    // a non-string goes through the original's character check, then eval() refuses it inside the try
    for (const ch of pyIter(expression)) if (!pyIn(ch, ALLOWED)) return 'Error: invalid characters in expression';
    return `Error: ${new PyException('TypeError', 'eval() arg 1 must be a string, bytes or code object').message}`;
  },
};

/** `think`: returns an empty string. */
export const thinkTool: TauToolImpl = { name: 'think', params: ['thought'], run: () => '' };

/** `transfer_to_human_agents`: a terminate tool in both domains. */
export const transferTool: TauToolImpl = {
  name: 'transfer_to_human_agents',
  params: ['summary'],
  run: () => 'Transfer successful',
};
