// Imports a subpath qitos-ts does not export.
import { Engine } from 'qitos-ts/engine';

export default Engine;
