import { HermesError, UsageError } from './errors.js';

/**
 * A server that could not bind `host:port` (the gateway, `hermes emulate`), as one line saying
 * what to change. The address comes from `--host` / `--port`, so the known causes are a
 * {@link UsageError} (the CLI exits 2); any other failure keeps the system's code (exit 1).
 */
export function listenFailure(error: { code?: string | undefined; message: string }, host: string, port: number) {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new UsageError(
        `cannot listen on ${address}: the port is already in use by another process; stop it or pick another --port (0 picks a free one)`,
      );
    case 'EACCES':
      return new UsageError(
        `cannot listen on ${address}: permission denied (ports below 1024 need privileges); pick another --port`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(`cannot listen on ${address}: this machine has no such address; pick another --host`);
    default:
      return new HermesError(`cannot listen on ${address}: ${error.code ?? error.message}`, { cause: error });
  }
}
