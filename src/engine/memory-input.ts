import type { MemoryAccess, MemoryRecord, Message, State } from '../core/index.js';

/**
 * Memory retrieval on the model path (the Python qitos kernel's `memory.retrieve_messages(state, observation)` in DECIDE): before
 * each model call the engine asks the run's memory for the records relevant to this step and gives them to the
 * model after the system prompt. The read is a `memory` event like any other (so a replay serves it back), and
 * the step record's `model.memory` holds what was retrieved.
 */
export interface MemoryInputOptions {
  /** How many records to retrieve (default 5). */
  k?: number;
  /** The query (default: the text of the latest user message, else the task). */
  query?: (state: State, observation: unknown) => string;
  /** How the records read to the model (default: one line per record under a heading). */
  render?: (records: readonly MemoryRecord[]) => string;
}

/** What a model turn retrieved: the query, the records, and the text the model got. */
export interface RecalledMemory {
  query: string;
  records: MemoryRecord[];
  text: string;
}

/** The heading of the default rendering. */
export const MEMORY_INPUT_HEADING = 'Relevant memory (retrieved for this step):';

/** One line per record: `- [step N, role] content`. */
export function renderMemoryRecords(records: readonly MemoryRecord[]): string {
  return [MEMORY_INPUT_HEADING, ...records.map((r) => `- [step ${r.step}, ${r.role}] ${r.content}`)].join('\n');
}

function latestUserText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const text = m.parts
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join(' ')
      .trim();
    if (text) return text;
  }
  return undefined;
}

/** Retrieves this step's records through the run's (traced) memory; undefined when nothing was found. */
export async function recallMemory(
  options: MemoryInputOptions,
  memory: MemoryAccess,
  state: State,
  observation: unknown,
): Promise<RecalledMemory | undefined> {
  const query = options.query ? options.query(state, observation) : (latestUserText(state.messages) ?? state.task);
  const records = await memory.retrieve(query, options.k ?? 5);
  if (!records.length) return undefined;
  return { query, records, text: (options.render ?? renderMemoryRecords)(records) };
}

/** The system prompt the model gets: the agent's, then the recalled memory. */
export function systemWithMemory(system: string | undefined, memory: RecalledMemory | undefined): string | undefined {
  if (!memory) return system;
  return system ? `${system}\n\n${memory.text}` : memory.text;
}
