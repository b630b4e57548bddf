import { UsageError } from '../core/errors.js';

/**
 * Endpoint mapping for emulation: `HERMES_CONNECT_TO="https://api.githubcopilot.com=http://127.0.0.1:4010"`
 * makes requests addressed to the first origin connect to the second, like curl's `--connect-to`.
 * The route keeps its real host, so host-based replay rules (SPEC §7.4: Copilot's
 * `reasoning_opaque` is lifted only on `githubcopilot.com`) apply exactly as in production while
 * the bytes go to a loopback emulator. Pairs are separated by commas. The map travels as the
 * requests' `connectTo` (`TransportRequest.connectTo`), which the transports' pooled HTTP client
 * applies; the process-wide `fetch` is never replaced.
 */
export function parseConnectTo(text: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const parts = pair.split('=').map((part) => part.trim());
    const [from, to] = parts;
    // A malformed value is a usage error: silently ignoring it would send the bytes to the real host.
    const fromOrigin = parts.length === 2 ? originOf(from) : undefined;
    const toOrigin = parts.length === 2 ? originOf(to) : undefined;
    if (!fromOrigin || !toOrigin) {
      throw new UsageError(
        `HERMES_CONNECT_TO: "${pair.trim()}" is not ORIGIN=ORIGIN (e.g. https://api.githubcopilot.com=http://127.0.0.1:4010)`,
      );
    }
    map.set(fromOrigin, toOrigin);
  }
  return map;
}

/** The origin of an absolute http(s) URL; undefined for anything else. */
function originOf(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
