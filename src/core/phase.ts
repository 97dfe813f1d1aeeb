import { z } from 'zod';

/** The phases of the loop, as named in traces and hooks. */
export const Phase = z.enum(['init', 'observe', 'decide', 'act', 'reduce', 'critique', 'check_stop', 'recover', 'end']);
export type Phase = z.infer<typeof Phase>;
