import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { OriginStamp, WireApi } from '../core/origin.js';
import { isNativeAssistantRecord } from './replay-policy.js';
import { jsonStringBytes } from './replay-utf8.js';

/**
 * Origin scoping of opaque carriers (SPEC §23.2). A signed or encrypted value (OpenRouter
 * `reasoning.encrypted` data, a `reasoning.text` signature, Anthropic-shaped thinking signatures,
 * Copilot `reasoning_opaque`, Gemini `thought_signature`) goes back verbatim only to the route
 * that issued it; elsewhere its readable text may travel, the blob never does. This prevents
 * "Invalid `signature` in `thinking` block" after switching models and
 * "invalid_encrypted_content" after switching deployments. Unstamped legacy messages are not
 * scoped (they follow SPEC §5–§7 only).
 */

/** The route side of the issuer comparison. */
export interface IssuerRoute {
  api: WireApi;
  /** Provider id, trimmed and lower-cased. */
  provider: string;
  /** Hostname of the effective base URL ("" when unknown). */
  host: string;
  /** Exact model id. */
  model: string;
}

/**
 * "Issuer matches" for a chat-completions route: the same wire API, the same provider id
 * (lower-cased) and the same host. A "" host on either side means "the provider's default
 * endpoint" (the origin stamp records "" when no URL was given) and matches any host of that
 * same provider. With `sameModel` the exact model id must match too (Anthropic signatures are
 * bound to the model that produced them).
 */
export function issuerMatches(origin: OriginStamp, route: IssuerRoute, options: { sameModel?: boolean } = {}): boolean {
  if (origin.api !== route.api) return false;
  if (origin.provider.trim().toLowerCase() !== route.provider) return false;
  if (origin.host !== '' && route.host !== '' && origin.host.toLowerCase() !== route.host) return false;
  return !options.sameModel || origin.model === route.model;
}

/** Where a scoping verdict applies: the issuer check with and without the model. */
export interface OriginVerdict {
  /** The message is unstamped or its issuer matches (provider and host). */
  sameIssuer: boolean;
  /** As above and the model matches too (for Anthropic-format signatures). */
  sameIssuerAndModel: boolean;
}

/** Computes both issuer verdicts for a message's origin stamp (unstamped: both true). */
export function originVerdict(origin: OriginStamp | undefined, route: IssuerRoute): OriginVerdict {
  if (!origin) return UNSCOPED;
  const sameIssuer = issuerMatches(origin, route);
  if (!sameIssuer) return FOREIGN;
  return origin.model === route.model ? UNSCOPED : SAME_ISSUER_OTHER_MODEL;
}

// Shared verdict values: one per outcome, so scoping a long history allocates nothing here.
const UNSCOPED: OriginVerdict = Object.freeze({ sameIssuer: true, sameIssuerAndModel: true });
const SAME_ISSUER_OTHER_MODEL: OriginVerdict = Object.freeze({ sameIssuer: true, sameIssuerAndModel: false });
const FOREIGN: OriginVerdict = Object.freeze({ sameIssuer: false, sameIssuerAndModel: false });

/** One `reasoning_details` entry removed or reduced by scoping. */
export interface ScopedEntry {
  index: number;
  /** `entry` (dropped whole) or `signature` (signature removed, readable text kept). */
  part: 'entry' | 'signature';
  type: string;
  bytes: number;
}

function isAnthropicFormat(entry: JsonObject): boolean {
  return (
    entry['format'] === 'anthropic-claude-v1' || entry['type'] === 'thinking' || entry['type'] === 'redacted_thinking'
  );
}

function isOpaqueOnly(entry: JsonObject): boolean {
  if (entry['type'] === 'reasoning.encrypted' || entry['type'] === 'redacted_thinking') return true;
  return (
    (typeof entry['data'] === 'string' || typeof entry['encrypted_content'] === 'string') && !hasReadableText(entry)
  );
}

function hasReadableText(entry: JsonObject): boolean {
  return ['text', 'thinking', 'summary'].some((key) => {
    const value = entry[key];
    return typeof value === 'string' && value.trim() !== '';
  });
}

/**
 * Scopes a `reasoning_details` list to the target route. Returns the same array when nothing
 * changed (opaque blobs are shared, never copied). Private records are left for SPEC §7 shaping.
 */
export function scopeReasoningDetails(
  details: readonly JsonValue[],
  verdict: OriginVerdict,
): { details: readonly JsonValue[]; scoped: ScopedEntry[] } {
  if (verdict.sameIssuerAndModel) return { details, scoped: [] };
  const scoped: ScopedEntry[] = [];
  let result: JsonValue[] | undefined;
  for (let index = 0; index < details.length; index++) {
    const entry = details[index] as JsonValue;
    const replacement = scopeEntry(entry, index, verdict, scoped);
    if (replacement !== entry && !result) result = details.slice(0, index) as JsonValue[];
    if (result && replacement !== null) result.push(replacement);
  }
  return { details: result ?? details, scoped };
}

/**
 * The entry as it may travel (itself, a copy without its signature, or null when dropped).
 *
 * An Anthropic-format entry and an opaque-only one (`reasoning.encrypted`) go back only to the
 * same issuer AND model: behind a relay the upstream model is the issuer (a Claude signature is
 * bound to its model; encrypted reasoning to the model that wrote it), so after `/model` a blob
 * never reaches another model. An Anthropic-format text that lost its signature is dropped whole:
 * unsigned, it is refused as an invalid signature too, and its readable text already travels in
 * `reasoning` / `reasoning_content`.
 */
function scopeEntry(entry: JsonValue, index: number, verdict: OriginVerdict, scoped: ScopedEntry[]): JsonValue | null {
  if (!isJsonObject(entry) || isNativeAssistantRecord(entry)) return entry;
  const anthropicFormat = isAnthropicFormat(entry);
  const opaqueOnly = isOpaqueOnly(entry);
  const allowed = anthropicFormat || opaqueOnly ? verdict.sameIssuerAndModel : verdict.sameIssuer;
  if (allowed) return entry;
  const type = typeof entry['type'] === 'string' ? entry['type'] : 'unknown';
  // A foreign entry in another API's native shape (Anthropic `thinking` from a Messages-API turn,
  // say) is not an OpenRouter-style detail at all: drop it whole. Its readable text already
  // travels in `reasoning` / `reasoning_content` where the route reads them.
  const signed = typeof entry['signature'] === 'string' && entry['signature'] !== '';
  if (opaqueOnly || !type.startsWith('reasoning.') || (anthropicFormat && signed)) {
    scoped.push({ index, part: 'entry', type, bytes: jsonStringBytes(entry) });
    return null;
  }
  const signature = entry['signature'];
  if (typeof signature !== 'string' || signature === '') return entry;
  const { signature: _signature, ...rest } = entry;
  const keep = hasReadableText(rest);
  scoped.push({ index, part: keep ? 'signature' : 'entry', type, bytes: jsonStringBytes(signature) });
  return keep ? rest : null;
}
