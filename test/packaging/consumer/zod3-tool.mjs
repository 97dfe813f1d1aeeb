// A project whose own zod is 3.x hands one of its schemas to defineTool.
import { z } from 'zod3';
import { defineTool } from 'qitos-ts';

defineTool({
  id: 'old',
  description: 'A tool with a zod 3 schema',
  parameters: z.object({ a: z.number() }),
  execute: () => 'x',
});
