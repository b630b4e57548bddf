import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../core/errors.js';
import { listenFailure } from '../core/listen-errors.js';
import { createGatewayApp } from './gateway-app.js';
import { bindRefusal, DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT } from './gateway-auth.js';
import type { GatewayOptions } from './gateway-types.js';

export { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT };

/** A gateway listening on a port. */
export interface RunningGateway {
  /** `http://HOST:PORT` (IPv6 hosts bracketed). */
  url: string;
  host: string;
  port: number;
  /** Stops accepting connections, drops idle keep-alive ones and resolves when closed. */
  close(): Promise<void>;
}

/**
 * Binds the gateway app (the only file that opens a port). Refuses a non-loopback host without
 * a token (a {@link UsageError}: the CLI exits 2). Port 0 picks a free port.
 */
export async function startGateway(
  options: GatewayOptions & { host?: string; port?: number },
): Promise<RunningGateway> {
  const host = options.host ?? DEFAULT_GATEWAY_HOST;
  const refusal = bindRefusal(host, options.token);
  if (refusal) throw new UsageError(refusal);
  const app = createGatewayApp(options);
  const port = options.port ?? DEFAULT_GATEWAY_PORT;
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(started));
    started.once('error', (error: NodeJS.ErrnoException) => reject(listenFailure(error, host, port)));
  });
  const boundPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${shownHost(host)}:${boundPort}`,
    host,
    port: boundPort,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function shownHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
