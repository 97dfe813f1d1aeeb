/** The `schema` of every trace manifest. (Its own module, free of zod, for readers that check only the header.) */
export const TRACE_SCHEMA = 'qitos.trace';
/** The newest trace format version this qitos reads and writes. */
export const TRACE_VERSION = 1;
