import { EnvError } from '../core/index.js';

/**
 * Turns a Node fs error into an EnvError whose message names the path (relative to the workspace) and
 * says what went wrong in words a model can act on. Errors that are already EnvErrors pass through.
 */
export function fsError(err: unknown, shown: string, action: string): EnvError {
  if (EnvError.isInstance(err)) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return new EnvError(`cannot ${action} "${shown}": no such file or folder`, { cause: err });
    case 'EISDIR':
      return new EnvError(`cannot ${action} "${shown}": it is a folder, not a file`, { cause: err });
    case 'ENOTDIR':
      return new EnvError(`cannot ${action} "${shown}": a part of the path is a file, not a folder`, { cause: err });
    case 'EACCES':
    case 'EPERM':
      return new EnvError(`cannot ${action} "${shown}": permission denied`, { cause: err });
    case 'ELOOP':
      return new EnvError(`cannot ${action} "${shown}": it is a symlink, which is not followed here`, { cause: err });
    case 'EEXIST':
      return new EnvError(`cannot ${action} "${shown}": it already exists`, { cause: err });
    case 'ENOTEMPTY':
      return new EnvError(`cannot ${action} "${shown}": the folder is not empty`, { cause: err });
    case 'ENXIO':
      return new EnvError(`cannot ${action} "${shown}": it is a named pipe or device with nothing on the other end`, {
        cause: err,
      });
    case 'ENOSPC':
      return new EnvError(`cannot ${action} "${shown}": no space left on the device`, { cause: err });
    default:
      return new EnvError(
        `cannot ${action} "${shown}": ${code ?? (err instanceof Error ? err.message : String(err))}`,
        { cause: err },
      );
  }
}
