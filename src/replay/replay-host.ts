/**
 * Route-matching primitives (SPEC §3.1–§3.2): hostname extraction, host-suffix matching and
 * local-endpoint detection. Pure string work: the WHATWG `URL` parser is deliberately not used
 * because it rewrites hosts (`http://0x7f.1` becomes `127.0.0.1`) and rejects the malformed
 * dotted quads that SPEC §3.2 rule 5 still classifies; the prior art uses Python's lenient
 * `urlparse`, which this mirrors.
 */

/**
 * The lower-cased hostname of a base URL (SPEC §3.1), or "" when there is none. A bare host with
 * no scheme is accepted (`api.deepseek.com/v1`); user info, port, path, query and fragment are
 * ignored; IPv6 brackets are removed (`http://[::1]:8080` gives `::1`).
 */
export function hostnameOf(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return '';
  let text = baseUrl.trim();
  if (text === '') return '';
  const schemeEnd = text.indexOf('://');
  text = schemeEnd >= 0 ? text.slice(schemeEnd + 3) : text.replace(/^\/\//, '');
  // Authority ends at the first path, query or fragment delimiter.
  const authorityEnd = text.search(/[/?#]/);
  let authority = authorityEnd >= 0 ? text.slice(0, authorityEnd) : text;
  const userInfoEnd = authority.lastIndexOf('@');
  if (userInfoEnd >= 0) authority = authority.slice(userInfoEnd + 1);
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    return close > 0 ? authority.slice(1, close).toLowerCase() : '';
  }
  const portStart = authority.indexOf(':');
  const host = portStart >= 0 ? authority.slice(0, portStart) : authority;
  return host.toLowerCase();
}

/**
 * SPEC §3.1: true when the base URL's hostname equals `domain` or ends with `"." + domain`.
 * Paths, queries and look-alike hosts never match (`https://evil.example/api.deepseek.com` and
 * `https://api.deepseek.com.evil.example` do not match `api.deepseek.com`).
 */
export function hostMatches(baseUrl: string | undefined, domain: string): boolean {
  const host = hostnameOf(baseUrl);
  if (host === '') return false;
  const wanted = domain.trim().toLowerCase();
  if (wanted === '') return false;
  return host === wanted || host.endsWith(`.${wanted}`);
}

/**
 * The path of a base URL (`/v1` of `https://host/v1?x`), "" when there is none. Like
 * {@link hostnameOf}, a bare host with no scheme is accepted.
 */
export function pathOf(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return '';
  let text = baseUrl.trim();
  const schemeEnd = text.indexOf('://');
  text = schemeEnd >= 0 ? text.slice(schemeEnd + 3) : text.replace(/^\/\//, '');
  const pathStart = text.search(/[/?#]/);
  if (pathStart < 0 || text[pathStart] !== '/') return '';
  const path = text.slice(pathStart);
  const pathEnd = path.search(/[?#]/);
  return pathEnd >= 0 ? path.slice(0, pathEnd) : path;
}

const BEDROCK_RUNTIME_HOST = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;

/** True for a Bedrock runtime host: `bedrock-runtime[-fips].<region>.amazonaws.com[.cn]` (WIRE §2.5). */
export function isBedrockRuntimeHost(hostname: string): boolean {
  return BEDROCK_RUNTIME_HOST.test(hostname);
}

/** The AWS region named by a Bedrock runtime base URL (`bedrock-runtime.us-west-2.amazonaws.com`), else undefined. */
export function bedrockRegionOf(baseUrl: string | undefined): string | undefined {
  return BEDROCK_RUNTIME_HOST.exec(hostnameOf(baseUrl))?.[1];
}

/** Same as {@link hostMatches} for an already extracted hostname (hot paths extract once). */
export function hostnameMatches(hostname: string, domain: string): boolean {
  if (hostname === '' || domain === '') return false;
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0']);
const LOCAL_SUFFIXES = ['.docker.internal', '.containers.internal', '.lima.internal', '.local'];

/**
 * SPEC §3.2: true when the base URL points at a local or private-network server (loopback,
 * container and mDNS names, unqualified Compose service names, private / link-local / CGNAT IP
 * literals, and malformed dotted quads in private ranges). False for empty or unparsable input,
 * global IPv6 literals and public DNS names.
 */
export function isLocalEndpoint(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return false;
  // A bare scheme ("http://") names no host; without this guard the normalisation below would
  // turn it into the unqualified host "http".
  if (/^[a-z][a-z0-9+.-]*:\/*$/i.test(baseUrl.trim())) return false;
  let text = baseUrl.trim().replace(/\/+$/, '');
  if (text === '') return false;
  if (!text.includes('://')) text = `http://${text}`;
  return isLocalHostname(hostnameOf(text));
}

/**
 * {@link isLocalEndpoint} for an already extracted hostname (an origin stamp's `host`). IPv6
 * brackets are accepted (`[::1]`), so a stamp written with a bracketed host is judged the same.
 */
export function isLocalHostname(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === '') return false;
  if (LOCAL_HOSTNAMES.has(host)) return true;
  if (LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return true;
  // An unqualified name such as a Docker Compose service (`http://ollama:11434`).
  if (!host.includes('.') && !host.includes(':')) return true;
  const ipv4 = parseIpv4(host);
  if (ipv4) return isPrivateIpv4(ipv4);
  if (host.includes(':')) return isPrivateIpv6(host);
  return looksLikePrivateDottedQuad(host);
}

/**
 * Parses a strict dotted-quad IPv4 literal (four decimal octets 0–255), else null. A leading
 * zero fails, as in Python's `ipaddress` (the prior art's parser): `127.0.0.01` is then judged by
 * SPEC §3.2 rule 5 only.
 */
function parseIpv4(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    octets.push(value);
  }
  return octets;
}

/**
 * Private, loopback, link-local, CGNAT and the other non-global IPv4 ranges that Python's
 * `ipaddress.is_private` reports (the prior art's test), plus 100.64.0.0/10 (Tailscale).
 */
function isPrivateIpv4(octets: number[]): boolean {
  const [a = 0, b = 0, c = 0, d = 0] = octets;
  if (a === 0 || a === 10 || a === 127) return true;
  if (a === 169 && b === 254) return true;
  if (a === 172 && b >= 16 && b <= 31) return true;
  if (a === 192 && b === 168) return true;
  if (a === 100 && b >= 64 && b <= 127) return true;
  // 192.0.0.0/29 and 192.0.0.170/31 (not the whole /24), 192.0.2.0/24 documentation.
  if (a === 192 && b === 0 && c === 0 && (d < 8 || d === 170 || d === 171)) return true;
  if (a === 192 && b === 0 && c === 2) return true;
  if (a === 198 && (b === 18 || b === 19)) return true;
  if (a === 198 && b === 51 && c === 100) return true;
  if (a === 203 && b === 0 && c === 113) return true;
  return a >= 240;
}

/**
 * The non-global IPv6 ranges of Python's `ipaddress` `is_private` / `is_link_local` (the prior
 * art's test): unspecified `::`, loopback `::1` (in any spelling, `0:0:0:0:0:0:0:1` too),
 * v4-mapped addresses judged by their IPv4 part, `100::/64`, `2001::/23` (includes
 * `2001:db8::/32`), unique-local `fc00::/7` and link-local `fe80::/10`. A zone id
 * (`fe80::1%eth0`, URL-encoded `%25eth0`) is ignored, as Python does.
 */
function isPrivateIpv6(host: string): boolean {
  const groups = parseIpv6(host.replace(/%.*$/, ''));
  if (groups === null) return false;
  const [first = 0, second = 0, third = 0, fourth = 0, fifth = 0, sixth = 0, seventh = 0, eighth = 0] = groups;
  if (first === 0 && second === 0 && third === 0 && fourth === 0 && fifth === 0) {
    if (sixth === 0xffff) return isPrivateIpv4([seventh >> 8, seventh & 0xff, eighth >> 8, eighth & 0xff]);
    if (sixth === 0 && seventh === 0 && eighth <= 1) return true;
  }
  if (first === 0x0100 && second === 0 && third === 0 && fourth === 0) return true;
  if (first === 0x2001 && second < 0x0200) return true;
  if (first === 0x2001 && second === 0x0db8) return true;
  if ((first & 0xfe00) === 0xfc00) return true;
  return (first & 0xffc0) === 0xfe80;
}

/** Expands an IPv6 literal (with `::` and an optional trailing dotted quad) to 8 groups, else null. */
function parseIpv6(host: string): number[] | null {
  if (!/^[0-9a-f:.]+$/.test(host) || !host.includes(':')) return null;
  let text = host;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const octets = parseIpv4(text.slice(lastColon + 1));
    if (octets === null) return null;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    tail.push((a << 8) | b, (c << 8) | d);
    // Keep a `::` that ends right before the quad; otherwise drop the separating colon.
    const prefix = text.slice(0, lastColon + 1);
    text = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const head = parse(halves[0] ?? '');
  const rest = halves.length === 2 ? parse(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return null;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
}

/** SPEC §3.2 rule 5: a dotted quad that failed IP parsing but starts like a private range. */
function looksLikePrivateDottedQuad(host: string): boolean {
  const parts = host.split('.');
  if (parts.length !== 4) return false;
  const first = Number(parts[0]);
  const second = Number(parts[1]);
  if (!/^\d+$/.test(parts[0] ?? '') || !/^\d+$/.test(parts[1] ?? '')) return false;
  if (first === 10) return true;
  if (first === 172 && second >= 16 && second <= 31) return true;
  if (first === 192 && second === 168) return true;
  return first === 100 && second >= 64 && second <= 127;
}
