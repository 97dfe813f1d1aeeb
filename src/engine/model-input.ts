import type {
  CustomPartKinds,
  Message,
  ModelMessage,
  ModelRequest,
  RequestHashes,
  ResultFormatter,
  ToolSpec,
} from '../core/index.js';
import { canonicalJson, messageToModel, plainResults } from '../core/index.js';
import { shortHash } from '../trace/short-hash.js';

/**
 * Builds the model messages from the history incrementally, so the kernel's per-step cost does not grow
 * with history: each history message is converted and hashed once. The contract it relies on: the engine
 * only appends to `state.messages`; whoever rewrites older messages (compaction) passes a new array with
 * new objects for what changed, and the builder then finds the first changed message by identity.
 */
export class ModelInputBuilder {
  private source: Message[] | undefined;
  private refs: Message[] = [];
  /**
   * Converted model messages, flattened behind a slot for the system message (index 0), and where each history
   * message's output starts. Each call hands out `slice()` of it: a fresh array (a model may keep its request)
   * made by one memcpy, many times cheaper than spreading into a new array.
   */
  private flat: ModelMessage[] = [{ role: 'system', content: '' }];
  private flatStart: number[] = [];
  /** Rolling hash of the converted history up to and including message i. */
  private prefix: string[] = [];
  private toolsRef: readonly ToolSpec[] | undefined;
  private toolsHash = shortHash('[]');
  /** The messages last hashed and their hash, so a request that kept them (a middleware changed params) reuses it. */
  private lastMessages: ModelMessage[] | undefined;
  private lastMessagesHash = '';
  /** The system prompt and params text last hashed: both rarely change between steps, and sha-256 is the cost. */
  private systemText: string | undefined;
  private systemHash = '';
  private paramsText: string | undefined;
  private paramsHash = '';

  /**
   * `formatResults`: how results of text-parsed calls read (the parser's; the plain default without one);
   * `partKinds`: the custom part kinds the history may hold, and how each renders.
   */
  constructor(
    private readonly formatResults: ResultFormatter = plainResults,
    private readonly partKinds?: CustomPartKinds,
  ) {}

  /** Model messages for system + history; `messagesHash` is the rolling hash of the history part. */
  build(system: string | undefined, history: Message[]): { messages: ModelMessage[]; messagesHash: string } {
    let start = this.refs.length;
    if (history !== this.source || history.length < this.refs.length) {
      start = 0;
      const n = Math.min(history.length, this.refs.length);
      while (start < n && history[start] === this.refs[start]) start++;
      this.source = history;
    }
    if (start < this.refs.length) {
      this.flat.length = this.flatStart[start];
      this.refs.length = this.flatStart.length = this.prefix.length = start;
    }
    for (let i = start; i < history.length; i++) {
      const m = history[i];
      const converted = messageToModel(m, this.formatResults, this.partKinds);
      this.refs.push(m);
      this.flatStart.push(this.flat.length);
      for (const c of converted) this.flat.push(c);
      this.prefix.push(shortHash((i ? this.prefix[i - 1] : '') + canonicalJson(converted)));
    }
    let messages: ModelMessage[];
    if (system) {
      this.flat[0] = { role: 'system', content: system };
      messages = this.flat.slice();
    } else messages = this.flat.slice(1);
    return { messages, messagesHash: this.prefix.length ? this.prefix[this.prefix.length - 1] : shortHash('') };
  }

  /** Hashes of a request's parts; pass `messagesHash` from `build` unless a policy rewrote the messages. */
  hashes(req: {
    system: string | undefined;
    messages: ModelMessage[];
    messagesHash?: string;
    tools: readonly ToolSpec[] | undefined;
    params: Record<string, unknown>;
  }): RequestHashes {
    if (req.tools !== this.toolsRef) {
      this.toolsRef = req.tools;
      this.toolsHash = shortHash(canonicalJson(req.tools ?? []));
    }
    const systemText = req.system ?? '';
    if (systemText !== this.systemText) {
      this.systemText = systemText;
      this.systemHash = shortHash(systemText);
    }
    const messages = req.messagesHash ?? shortHash(canonicalJson(req.messages.filter((m) => m.role !== 'system')));
    this.lastMessages = req.messages;
    this.lastMessagesHash = messages;
    const paramsText = canonicalJson(req.params);
    if (paramsText !== this.paramsText) {
      this.paramsText = paramsText;
      this.paramsHash = shortHash(paramsText);
    }
    const system = this.systemHash;
    const params = this.paramsHash;
    return {
      request: shortHash(system + messages + this.toolsHash + params),
      system,
      messages,
      tools: this.toolsHash,
      params,
    };
  }

  /** Hashes of a whole model-path request (what a middleware passed on): its system prompt, messages, tools and params. */
  hashesOf(request: ModelRequest): RequestHashes {
    const { messages, tools, ...params } = request;
    const system = messages[0]?.role === 'system' ? messages[0].content : undefined;
    return this.hashes({
      system,
      messages,
      messagesHash: messages === this.lastMessages ? this.lastMessagesHash : undefined,
      tools,
      params,
    });
  }
}
