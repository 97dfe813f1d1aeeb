import fc from 'fast-check';
import { inject } from 'vitest';
import './fc-global-setup.js'; // the ProvidedContext type of `fcSeed`

// Every property of every file runs from the suite's one seed (printed once by fc-global-setup.ts).
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: inject('fcSeed') });
