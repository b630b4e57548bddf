import type { StreamEvent } from './stream-event.js';

/**
 * The one redaction every error, event, body, log line and stored base URL passes through
 * (`openTransportStream`, the gateway's exits, the log files, the session store): API keys never
 * reach output, logs or the store, even when a provider echoes the request's headers back inside
 * an error chunk, a malformed chunk, a JSON error body or a response header such as
 * `x-request-id`. The rules, in order:
 *
 * 1. Every known secret (the configured key and the credentials found in the environment) is
 *    removed literally, and so is every piece of one (of 20 characters or more, as provider keys
 *    are) that is at least {@link MIN_PIECE_LENGTH} characters long and begins or ends it: a key
 *    cut in two by a chunk boundary (a malformed stream chunk quoted in an error) leaves no half
 *    behind.
 * 2. Anything shaped like a credential: `Bearer …`, `x-api-key`, `x-goog-api-key`, AWS
 *    signatures, secret keys and session tokens, `sk-…`, `AIza…` and AWS access key ids.
 * 3. URL secrets: the value of every query parameter whose name says it holds one (`key`,
 *    `api_key`, `token`, `access_token`, `signature`, `X-Amz-Credential`, … — any name containing
 *    key, token, secret, passw, pwd, sig, auth or credential), and the password of a URL's user
 *    info (`https://user:KEY@host` → `https://user:[redacted]@host`; a user name alone is kept).
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]';

/** Shortest literal secret redacted (shorter values would erase ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** Shortest piece of a known secret (its start or its end) that is redacted on its own. */
export const MIN_PIECE_LENGTH = 8;

/**
 * Shortest known secret whose pieces are redacted: provider keys are 32 characters or more, so
 * 8 of them are random; a short made-up value (`sk-test-provider`) would erase words.
 */
const MIN_PIECED_SECRET_LENGTH = 20;

/** Environment variables whose values are credentials (AWS, Google, any `*_API_KEY`, `*_TOKEN`). */
const SECRET_ENV_NAME = /(_API_KEY|_SECRET_ACCESS_KEY|_SESSION_TOKEN|_BEARER_TOKEN\w*|_ACCESS_TOKEN|_AUTH_TOKEN)$/;

/**
 * Credential shapes, each with the part to keep in group 1. Header names appear as echoed
 * text (`authorization: Bearer …`), JSON members (`"x-api-key":"…"`) or query parameters.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /(\bBearer\s+)[A-Za-z0-9][^\s"',;\\]*/gi,
  /(\b(?:x-api-key|x-goog-api-key|api[-_]?key|authorization|x-amz-security-token|aws_session_token|aws_secret_access_key|secretAccessKey|sessionToken)\\?["']?\s*[:=]\s*\\?["']?)(?!Bearer\s)[^\s"',;&\\]{4,}/gi,
  /(\bAWS4-HMAC-SHA256\s+Credential=)[^\s"',;\\]+/g,
  /(\bSignature=)[0-9a-f]{16,}/gi,
  /(^|[^A-Za-z0-9_-])sk-[A-Za-z0-9_-]{12,}/g,
  /(^|[^A-Za-z0-9_-])AIza[0-9A-Za-z_-]{20,}/g,
  /(^|[^A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/g,
  // A query parameter whose name says it holds a secret (`?key=`, `&api_key=`, `?X-Amz-Signature=`).
  /([?&;][A-Za-z0-9_.-]*(?:key|token|secret|passw|pwd|sig|auth|credential)[A-Za-z0-9_.-]*=)[^&\s"'#<>]+/gi,
  // The password of a URL's user info: `scheme://user:PASSWORD@host`.
  /(\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/?#@:"'<>]*:)[^\s/?#@"'<>]+(?=@)/g,
];

/** The secrets a request knows literally: its key plus credential values from the environment. */
export function knownSecrets(
  apiKey: string | undefined,
  environment: Readonly<Record<string, string | undefined>>,
): string[] {
  const secrets = new Set<string>();
  if (apiKey !== undefined && apiKey.length >= MIN_SECRET_LENGTH) secrets.add(apiKey);
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && SECRET_ENV_NAME.test(name)) secrets.add(value);
  }
  // Longest first, so a key that contains another is removed whole.
  return [...secrets].sort((left, right) => right.length - left.length);
}

/** `text` with every known secret (whole or a piece of one) and every credential-shaped value replaced by {@link REDACTED}. */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    if (secret.length >= MIN_PIECED_SECRET_LENGTH) result = redactPieces(result, secret);
  }
  for (const pattern of CREDENTIAL_PATTERNS) result = result.replace(pattern, `$1${REDACTED}`);
  return result;
}

/**
 * `text` with every run of at least {@link MIN_PIECE_LENGTH} characters that is the start or the
 * end of `secret` replaced: the first half of a key whose second half arrived in a later chunk.
 */
function redactPieces(text: string, secret: string): string {
  const head = secret.slice(0, MIN_PIECE_LENGTH);
  const tail = secret.slice(-MIN_PIECE_LENGTH);
  if (!text.includes(head) && !text.includes(tail)) return text;
  const cuts: [number, number][] = [];
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    let end = at + MIN_PIECE_LENGTH;
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at]) end += 1;
    cuts.push([at, end]);
  }
  for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + 1)) {
    let start = at;
    const last = secret.length - MIN_PIECE_LENGTH;
    while (start > 0 && at - start < last && text[start - 1] === secret[last - (at - start) - 1]) start -= 1;
    cuts.push([start, at + MIN_PIECE_LENGTH]);
  }
  cuts.sort((left, right) => left[0] - right[0]);
  let result = '';
  let from = 0;
  for (const [start, end] of cuts) {
    if (start >= from) result += text.slice(from, start) + REDACTED;
    from = Math.max(from, end);
  }
  return result + text.slice(from);
}

/**
 * A base URL as it may be stored and shown (`sessions.base_url`, `sessions show`, export): its
 * user-info password and secret-named query values replaced by {@link REDACTED} (rule 3), and
 * any of `secrets` removed. The rest (scheme, host, path, other parameters) is kept.
 */
export function redactUrl(url: string, secrets: readonly string[] = []): string {
  return redactText(url, secrets);
}

/** True when `url` had something redacted: it cannot be used to send a request as it is. */
export function isRedactedUrl(url: string): boolean {
  return url.includes(REDACTED);
}

/** How deep a `cause` chain, and the objects an error holds, are followed. */
const MAX_CAUSE_DEPTH = 4;

/**
 * Redacts an error in place: every string it holds — message, stack, the provider body, the
 * request id a response header gave (a provider may echo the key there), headers and other
 * details in plain objects — and its causes. In place so the error keeps its class (callers
 * branch on `instanceof`).
 */
export function redactError<T>(error: T, secrets: readonly string[], depth = 0): T {
  if (!(error instanceof Error) || depth > MAX_CAUSE_DEPTH) return error;
  rewrite(error, 'message', secrets);
  rewrite(error, 'stack', secrets);
  redactFields(error, secrets, depth);
  if (error.cause !== undefined) {
    if (error.cause instanceof Error) redactError(error.cause, secrets, depth + 1);
    else if (typeof error.cause === 'string') rewrite(error, 'cause', secrets);
    else redactFields(error.cause, secrets, depth + 1);
  }
  return error;
}

/** Redacts the own enumerable string fields of `target`, and of the plain objects and arrays it holds. */
function redactFields(target: unknown, secrets: readonly string[], depth: number): void {
  if (typeof target !== 'object' || target === null || depth > MAX_CAUSE_DEPTH) return;
  for (const key of Object.keys(target)) {
    if (key === 'cause') continue;
    const value = (target as Record<string, unknown>)[key];
    if (typeof value === 'string') rewrite(target, key, secrets);
    else if (value instanceof Error) redactError(value, secrets, depth + 1);
    else if (Array.isArray(value) || isPlainObject(value)) redactFields(value, secrets, depth + 1);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function rewrite(target: object, key: string, secrets: readonly string[]): void {
  const value = (target as Record<string, unknown>)[key];
  if (typeof value !== 'string') return;
  const redacted = redactText(value, secrets);
  if (redacted === value) return;
  try {
    (target as Record<string, unknown>)[key] = redacted;
  } catch {
    Object.defineProperty(target, key, { value: redacted, writable: true, configurable: true });
  }
}

/** The event with its error or retry reason redacted; other events pass unchanged. */
export function redactEvent(event: StreamEvent, secrets: readonly string[]): StreamEvent {
  if (event.type === 'error') {
    redactError(event.error, secrets);
    return event;
  }
  if (event.type === 'retry') {
    const reason = redactText(event.reason, secrets);
    return reason === event.reason ? event : { ...event, reason };
  }
  return event;
}
