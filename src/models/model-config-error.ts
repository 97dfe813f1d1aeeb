import { QitosError, markErrorClass } from '../core/index.js';

/** A model could not be configured: unknown provider, missing API key or base URL, invalid config. The message says what to fix. */
export class ModelConfigError extends QitosError {
  static {
    markErrorClass(this, 'ModelConfigError');
  }

  constructor(message: string) {
    super('config', message);
    this.name = 'ModelConfigError';
  }
}
