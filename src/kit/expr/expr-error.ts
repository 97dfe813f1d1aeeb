import { QitosError, markErrorClass } from '../../core/index.js';

/**
 * The one error type of the expression language: a syntax error, an unknown name or function, a type error
 * (`"a" < 1`), a missing field, a limit. The message names the problem and, where it has one, the column
 * (1-based, in UTF-16 code units) of the source.
 */
export class ExprError extends QitosError {
  static {
    markErrorClass(this, 'ExprError');
  }

  constructor(
    message: string,
    readonly column?: number,
  ) {
    super('expr', message);
    this.name = 'ExprError';
  }
}
