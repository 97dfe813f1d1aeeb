/** Resolves with the name of the first SIGTERM or SIGINT the process gets (long-running commands: serve). */
export function stopSignal(): Promise<string> {
  return new Promise((done) => {
    const on = (sig: string) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      done(sig);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}
