import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { windowMemory, type WindowMemoryOptions } from './window-memory.js';
export { summaryMemory, MEMORY_SUMMARY_PROMPT, type SummaryMemoryOptions } from './summary-memory.js';
export { vectorMemory, type VectorMemoryOptions } from './vector-memory.js';
export { markdownMemory, type MarkdownMemoryOptions } from './markdown-memory.js';
export { formatNote, parseNotes } from './markdown-notes.js';
