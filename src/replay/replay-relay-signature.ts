/**
 * SPEC §24.8: rejected thinking signatures on chat-completions routes that relay Anthropic
 * (OpenRouter and the other full-carrier routes). A 400 saying a thinking signature is invalid
 * gets the SPEC §9.4 treatment: the `reasoning_details` entries sent are fingerprinted, the
 * fingerprints are persisted in the session (the same `_anthropic_rejected_thinking` list) and
 * every later rebuild leaves those entries out. Pure.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import { sha256Hex } from './anthropic-sha256.js';

/**
 * Fingerprint of one wire `reasoning_details` entry: SHA-256 hex of `type\0value`, where value is
 * its signature, else its encrypted `data`, else its readable `text` (a relay answers "Invalid
 * signature" for a text entry sent without one, e.g. after origin scoping removed a foreign
 * signature). Null when the entry has none of them.
 */
export function relayEntryFingerprint(entry: JsonObject): string | null {
  const type = entry['type'];
  if (typeof type !== 'string') return null;
  for (const key of ['signature', 'data', 'text']) {
    const value = entry[key];
    if (typeof value === 'string' && value !== '') return sha256Hex(`${type}\0${value}`);
  }
  return null;
}

/** Fingerprints of every `reasoning_details` entry on the assistant messages of a request body (sorted, unique). */
export function relaySignatureFingerprints(body: JsonObject): string[] {
  const found = new Set<string>();
  const messages = body['messages'];
  if (!Array.isArray(messages)) return [];
  for (const message of messages) {
    if (!isJsonObject(message) || message['role'] !== 'assistant') continue;
    const details = message['reasoning_details'];
    if (!Array.isArray(details)) continue;
    for (const entry of details) {
      if (!isJsonObject(entry)) continue;
      const fingerprint = relayEntryFingerprint(entry);
      if (fingerprint !== null) found.add(fingerprint);
    }
  }
  return [...found].sort();
}

/** An entry left out because its fingerprint was rejected. */
export interface RejectedEntry {
  index: number;
  type: string;
  entry: JsonObject;
}

/** The wire entries without the remembered rejected ones, and which were left out. */
export function withoutRejectedEntries(
  details: readonly JsonValue[],
  rejected: ReadonlySet<string>,
): { details: readonly JsonValue[] | undefined; dropped: RejectedEntry[] } {
  const dropped: RejectedEntry[] = [];
  const kept: JsonValue[] = [];
  details.forEach((entry, index) => {
    const fingerprint = isJsonObject(entry) ? relayEntryFingerprint(entry) : null;
    if (fingerprint !== null && rejected.has(fingerprint) && isJsonObject(entry)) {
      dropped.push({ index, type: String(entry['type']), entry });
    } else kept.push(entry);
  });
  if (dropped.length === 0) return { details, dropped };
  return { details: kept.length > 0 ? kept : undefined, dropped };
}
