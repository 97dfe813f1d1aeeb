import { z } from 'zod';
import { defineTool } from '../../src/core/index.js';

/** A tool node's tool in the workflow tests: returns its `text` argument. */
export const echo = defineTool({
  id: 'echo',
  description: 'Echoes.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
