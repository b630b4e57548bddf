import type { StreamEvent } from './stream-event.js';

/**
 * The one redaction every error, event and body passes through before it leaves a transport
 * (`openTransportStream`) or the gateway: API keys never reach output, logs or the store, even when a provider echoes
 * the request's headers back inside an error chunk, a malformed chunk or a JSON error body.
 * Removes the configured key and the credentials found in the environment (literal match),
 * then anything shaped like a credential: `Bearer …`, `x-api-key`, `x-goog-api-key`, AWS
 * signatures, secret keys and session tokens.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]';

/** Shortest literal secret redacted (shorter values would erase ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** Environment variables whose values are credentials (AWS, Google, any `*_API_KEY`, `*_TOKEN`). */
const SECRET_ENV_NAME = /(_API_KEY|_SECRET_ACCESS_KEY|_SESSION_TOKEN|_BEARER_TOKEN\w*|_ACCESS_TOKEN|_AUTH_TOKEN)$/;

/**
 * Credential shapes, each with the part to keep in group 1. Header names appear as echoed
 * text (`authorization: Bearer …`), JSON members (`"x-api-key":"…"`) or query parameters.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /(\bBearer\s+)[A-Za-z0-9][^\s"',;\\]*/gi,
  /([?&]key=)[^&\s"'#]+/g,
  /(\b(?:x-api-key|x-goog-api-key|api[-_]?key|authorization|x-amz-security-token|aws_session_token|aws_secret_access_key|secretAccessKey|sessionToken)\\?["']?\s*[:=]\s*\\?["']?)(?!Bearer\s)[^\s"',;&\\]{4,}/gi,
  /(\bAWS4-HMAC-SHA256\s+Credential=)[^\s"',;\\]+/g,
  /(\bSignature=)[0-9a-f]{16,}/gi,
  /(^|[^A-Za-z0-9_-])sk-[A-Za-z0-9_-]{12,}/g,
  /(^|[^A-Za-z0-9_-])AIza[0-9A-Za-z_-]{20,}/g,
  /(^|[^A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/g,
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

/** `text` with every known secret and every credential-shaped value replaced by {@link REDACTED}. */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  for (const pattern of CREDENTIAL_PATTERNS) result = result.replace(pattern, `$1${REDACTED}`);
  return result;
}

/** How deep a `cause` chain is followed. */
const MAX_CAUSE_DEPTH = 4;

/**
 * Redacts an error in place: message, stack, the provider body an error keeps, and its causes.
 * In place so the error keeps its class (callers branch on `instanceof`).
 */
export function redactError<T>(error: T, secrets: readonly string[], depth = 0): T {
  if (!(error instanceof Error) || depth > MAX_CAUSE_DEPTH) return error;
  const writable = error as Error & { body?: unknown };
  rewrite(writable, 'message', secrets);
  rewrite(writable, 'stack', secrets);
  rewrite(writable, 'body', secrets);
  if (error.cause !== undefined) {
    if (error.cause instanceof Error) redactError(error.cause, secrets, depth + 1);
    else if (typeof error.cause === 'string') rewrite(writable, 'cause', secrets);
  }
  return error;
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
