/**
 * Endpoint mapping for emulation: `HERMES_CONNECT_TO="https://api.githubcopilot.com=http://127.0.0.1:4010"`
 * makes requests addressed to the first origin connect to the second, like curl's `--connect-to`.
 * The route keeps its real host, so host-based replay rules (SPEC §7.4: Copilot's
 * `reasoning_opaque` is lifted only on `githubcopilot.com`) apply exactly as in production while
 * the bytes go to a loopback emulator. Pairs are separated by commas.
 */
export function parseConnectTo(text: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of (text ?? '').split(',')) {
    const [from, to] = pair.split('=').map((part) => part.trim());
    if (!from || !to) continue;
    map.set(new URL(from).origin, new URL(to).origin);
  }
  return map;
}

let installed: Map<string, string> | null = null;

/** Installs (or extends) the mapping on the process-wide `fetch`. Idempotent. */
export function installConnectTo(map: Map<string, string>): void {
  if (map.size === 0) return;
  if (installed) {
    for (const [from, to] of map) installed.set(from, to);
    return;
  }
  installed = new Map(map);
  const mapping = installed;
  const original = globalThis.fetch;
  globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const origin = new URL(url).origin;
    const target = mapping.get(origin);
    if (!target) return original(input, init);
    const rewritten = target + url.slice(origin.length);
    return original(input instanceof Request ? new Request(rewritten, input) : rewritten, init);
  };
}
