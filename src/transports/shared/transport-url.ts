/**
 * Request URLs from a route's base URL (pure: `prepare` builds them). A base URL may carry a
 * query — some gateways and proxies take their key or API version there
 * (`https://gateway.example/v1?key=K`) — and the endpoint path goes before it:
 * `https://gateway.example/v1/chat/completions?key=K`, never `…/v1?key=K/chat/completions`. An
 * endpoint with its own query (Gemini's `?alt=sse`) gets the base URL's query first, then its own.
 * A fragment is never sent, so it is dropped; trailing slashes of the base path are trimmed.
 */

/** A base URL split at its query. */
export interface BaseUrlParts {
  /** Scheme, host and path, without the query, fragment and trailing slashes. */
  path: string;
  /** The query without its `?` ('' when there is none). */
  query: string;
}

/** Splits `baseUrl` into its path and query (see the file comment). */
export function splitBaseUrl(baseUrl: string): BaseUrlParts {
  const trimmed = baseUrl.trim();
  const hash = trimmed.indexOf('#');
  const withoutFragment = hash === -1 ? trimmed : trimmed.slice(0, hash);
  const mark = withoutFragment.indexOf('?');
  const path = (mark === -1 ? withoutFragment : withoutFragment.slice(0, mark)).replace(/\/+$/, '');
  const query = mark === -1 ? '' : withoutFragment.slice(mark + 1);
  return { path, query };
}

/** `url` with `query` appended to its own query (or as its query); `url` unchanged when `query` is ''. */
export function withQuery(url: string, query: string): string {
  if (query === '') return url;
  const mark = url.indexOf('?');
  if (mark === -1) return `${url}?${query}`;
  // The base URL's query first, then the endpoint's own.
  return `${url.slice(0, mark)}?${query}&${url.slice(mark + 1)}`;
}

/** `baseUrl` with `endpoint` (a path that may carry its own `?query`) joined before its query. */
export function joinBaseUrl(baseUrl: string, endpoint: string): string {
  const { path, query } = splitBaseUrl(baseUrl);
  return withQuery(`${path}${endpoint}`, query);
}
