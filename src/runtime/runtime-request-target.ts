import type { Route } from '../core/route.js';

/**
 * Where a route's requests really go, when that is not the address the route names: an
 * in-process emulator (`--provider emulator:NAME`, which may stand for a real origin so that
 * host-based replay rules apply, SPEC §5) or an origin `HERMES_CONNECT_TO` maps elsewhere. The
 * route key keeps the real host (it is the replay identity); `/model`, the request log line and
 * the gateway inspector name this target beside it, so nobody reads `api.deepseek.com` while the
 * bytes go to 127.0.0.1.
 */

/** The session route fields that name an in-process emulator (`emulator:PERSONA`). */
export interface EmulatorSessionRoute {
  provider: string;
}

/** `emulator deepseek at http://127.0.0.1:PORT/v1`, `http://127.0.0.1:PORT/v1 (connect-to)`, or undefined. */
export function requestTarget(
  route: Pick<Route, 'baseUrl'>,
  connectTo: ReadonlyMap<string, string> | undefined,
  sessionRoute: EmulatorSessionRoute | undefined,
): string | undefined {
  const persona = sessionRoute?.provider.startsWith('emulator:') ? sessionRoute.provider.slice('emulator:'.length) : '';
  const mapped = mappedAddress(route.baseUrl, connectTo);
  if (persona !== '') {
    const address = mapped ?? route.baseUrl;
    return address === undefined ? `emulator ${persona}` : `emulator ${persona} at ${address}`;
  }
  return mapped === undefined ? undefined : `${mapped} (connect-to)`;
}

/** The base URL with its origin replaced by the one `connectTo` maps it to, or undefined. */
function mappedAddress(
  baseUrl: string | undefined,
  connectTo: ReadonlyMap<string, string> | undefined,
): string | undefined {
  if (baseUrl === undefined || connectTo === undefined || connectTo.size === 0) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const to = connectTo.get(url.origin);
  if (to === undefined) return undefined;
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${to.replace(/\/$/, '')}${path}`;
}
