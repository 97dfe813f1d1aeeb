/** One web search result. */
export interface WebSearchHit {
  title: string;
  url: string;
  snippet?: string;
}

/** A web search service (an API client the user provides); the web_search tool calls it. */
export interface WebSearchBackend {
  /** Shown in the tool's description and results (e.g. "brave", "searxng"). */
  readonly name: string;
  search(query: string, options: { limit: number; signal: AbortSignal }): Promise<WebSearchHit[]>;
}

/** One code search result. */
export interface CodeSearchHit {
  /** Repository or project, when the backend spans several. */
  repo?: string;
  path: string;
  line?: number;
  snippet?: string;
  url?: string;
}

/** A code search service (e.g. a Sourcegraph or GitHub code search client); the code_search tool calls it. */
export interface CodeSearchBackend {
  readonly name: string;
  search(query: string, options: { limit: number; language?: string; signal: AbortSignal }): Promise<CodeSearchHit[]>;
}
