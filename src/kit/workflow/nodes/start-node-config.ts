import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { commonFields } from './node-fields.js';

/** Fields of the start marker (a workflow has exactly one). */
export const StartNodeFields = z.object({ ...commonFields });

/** The start marker's configuration (immutable value object). */
export const StartNodeConfig = defineNodeConfig('start', StartNodeFields);
export type StartNodeConfig = NodeConfigValue<'start', z.output<typeof StartNodeFields>>;
