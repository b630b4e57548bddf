/**
 * A reader that stops early (`hermes logs | head -1`, `hermes sessions show ID | head`) closes
 * the pipe: the next write fails with EPIPE. That is the reader's choice, not a failure: the
 * process stops writing and exits 0 without a stack trace. Any other stream error is one line
 * and exit 1.
 */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      if (stream !== process.stderr) process.stderr.write(`hermes: cannot write output: ${error.message}\n`);
      process.exit(1);
    });
  }
}
