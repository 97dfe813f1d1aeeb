import type { AnyTool, Env, ToolSpec } from '../core/index.js';
import { toolSpec } from '../core/index.js';

/** The tools an agent offers, by id. One instance per agent; no global registry. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private specsCache: ToolSpec[] | undefined;

  constructor(tools: Iterable<AnyTool> = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool; a second tool with the same id is an error (names must be unambiguous to the model). */
  register(tool: AnyTool): this {
    if (this.tools.has(tool.id)) throw new Error(`tool "${tool.id}" is already registered`);
    this.tools.set(tool.id, tool);
    this.specsCache = undefined;
    return this;
  }

  /** Removes a tool (e.g. one an MCP server no longer offers); true when it was there. */
  unregister(id: string): boolean {
    const had = this.tools.delete(id);
    if (had) this.specsCache = undefined;
    return had;
  }

  get(id: string): AnyTool | undefined {
    return this.tools.get(id);
  }

  has(id: string): boolean {
    return this.tools.has(id);
  }

  get names(): string[] {
    return [...this.tools.keys()];
  }

  get size(): number {
    return this.tools.size;
  }

  list(): AnyTool[] {
    return [...this.tools.values()];
  }

  /** JSON Schema specs of every tool (cached until the next `register`). */
  specs(): ToolSpec[] {
    return (this.specsCache ??= this.list().map(toolSpec));
  }

  /** Tools whose required op groups the env lacks, as `{ tool, group }` pairs. */
  missingCapabilities(env: Env): Array<{ tool: string; group: string }> {
    const missing: Array<{ tool: string; group: string }> = [];
    for (const t of this.tools.values())
      for (const g of t.requires) if (env.ops(g) === undefined) missing.push({ tool: t.id, group: g });
    return missing;
  }
}
