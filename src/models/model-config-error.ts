/** A model could not be configured: unknown provider, missing API key or base URL, invalid config. The message says what to fix. */
export class ModelConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigError';
  }
}
