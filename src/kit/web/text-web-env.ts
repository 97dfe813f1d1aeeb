import type { Env, EnvArtifact, OpGroups, Task } from '../../core/index.js';
import { TextBrowser, type TextBrowserOptions } from './text-browser.js';

/** Options of a TextWebEnv: the browser's (allow-list, limits, view) plus an env whose other op groups it offers. */
export interface TextWebEnvOptions extends TextBrowserOptions {
  /** An env whose op groups (`file`, `process`, ...) this env offers besides `web`; its lifecycle is followed. */
  inner?: Env;
  /** Name recorded in the trace (default `text_web`). */
  name?: string;
}

/**
 * An env with a text browser: the `web` op group (a {@link TextBrowser}) that the web_open, web_scroll, web_find,
 * web_follow and web_back tools use. Fetches go only to the hosts the user allowed, by web_fetch's rules. With
 * `inner`, the env also offers that env's op groups (a workspace to write findings into). Every run starts with no
 * page open; `observe()` tells the agent which page it is on.
 *
 * It lives in src/kit, not src/envs, because it fetches with web_fetch's code (src/kit/tools), and envs may not import
 * kit.
 */
export class TextWebEnv implements Env {
  readonly name: string;
  readonly browser: TextBrowser;
  private readonly inner: Env | undefined;

  constructor(options: TextWebEnvOptions) {
    this.browser = new TextBrowser(options);
    this.inner = options.inner;
    this.name = options.name ?? (options.inner ? `text_web+${options.inner.name}` : 'text_web');
  }

  /** Starts the run with no page open, and sets the inner env up for the task. */
  async setup(task: Task): Promise<void> {
    this.browser.reset();
    await this.inner?.setup?.(task);
  }

  /** The page the browser is on (null before the first), and the inner env's observation if it has one. */
  observe(): { page: ReturnType<TextBrowser['summary']>; inner?: unknown } {
    return { page: this.browser.summary(), ...(this.inner?.observe ? { inner: this.inner.observe() } : {}) };
  }

  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  ops(group: string): unknown {
    if (group === 'web') return this.browser;
    return this.inner?.ops(group);
  }

  isTerminal(): boolean {
    return this.inner?.isTerminal?.() ?? false;
  }

  async artifacts(): Promise<EnvArtifact[]> {
    return (await this.inner?.artifacts?.()) ?? [];
  }

  async close(): Promise<void> {
    this.browser.reset();
    await this.inner?.close?.();
  }
}
