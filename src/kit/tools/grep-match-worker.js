// Worker thread of the grep tool (plain JavaScript: workers load it without the TypeScript loader).
// It runs the model's regular expression over the text files the main thread sends, so a pattern that
// backtracks catastrophically blocks this thread only; the main thread terminates it at its deadline.
//
// workerData: { progress: SharedArrayBuffer (Int32Array[2]) }
// in:  { pattern, flags, maxLineLength, files: Uint8Array[], cap }   (cap: most matching lines wanted)
// out: { ready: true } once at start (the deadline of a batch counts from then, not from the thread's slow start);
//      { hits: [fileIndex, lineNo, text][], more } per batch (more: index of the file where a match beyond cap was found, or -1)
// progress[0] / progress[1]: the file index and 0-based line being matched, read by the main thread when it
// stops a run so the error can say where the pattern got stuck.
import { parentPort, workerData } from 'node:worker_threads';

const progress = new Int32Array(workerData.progress);
const decoder = new TextDecoder('utf-8');
let compiled = { key: '', re: /(?:)/ };

parentPort.postMessage({ ready: true });

parentPort.on('message', ({ pattern, flags, maxLineLength, files, cap }) => {
  // A worker serves one call after another: compile once per pattern, not once per batch.
  const key = `${flags}/${pattern}`;
  if (compiled.key !== key) compiled = { key, re: new RegExp(pattern, flags) };
  const { re } = compiled;
  const hits = [];
  let more = -1;
  scan: for (let f = 0; f < files.length; f++) {
    Atomics.store(progress, 0, f);
    const lines = decoder.decode(files[f]).split('\n');
    for (let i = 0; i < lines.length; i++) {
      Atomics.store(progress, 1, i);
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
      if (!re.test(line)) continue;
      if (hits.length >= cap) {
        more = f;
        break scan;
      }
      hits.push([f, i + 1, line.length > maxLineLength ? `${line.slice(0, maxLineLength)}… [cut]` : line]);
    }
  }
  parentPort.postMessage({ hits, more });
});
