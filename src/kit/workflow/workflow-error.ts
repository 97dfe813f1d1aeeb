import { QitosError, markErrorClass } from '../../core/index.js';

/**
 * Anything wrong with a workflow: an invalid node config, a definition the checker refuses, a YAML file that
 * does not parse. `nodeId`, `field`, `line` and `column` say where, when known; the message names them too.
 */
export class WorkflowError extends QitosError {
  static {
    markErrorClass(this, 'WorkflowError');
  }

  readonly nodeId: string | undefined;
  readonly field: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, where: { nodeId?: string; field?: string; line?: number; column?: number } = {}) {
    super('workflow', message);
    this.name = 'WorkflowError';
    this.nodeId = where.nodeId;
    this.field = where.field;
    this.line = where.line;
    this.column = where.column;
  }
}
