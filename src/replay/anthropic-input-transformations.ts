/**
 * `input_transformations` (SPEC §26.4, WIRE §8): with the `thinking-binding-controls-2026-08-01`
 * beta, an Anthropic answer lists what the API did to the request before the model read it —
 * `{"type":"thinking_dropped","path":"messages.1.content.0","reason":"prefix_binding_mismatch"}`
 * for a thinking block it dropped (`model_binding_mismatch` for one the model may not read), and
 * `thinking_mismatch_allowed` for one it showed the model although its binding failed. Hermes
 * stores the list with the answer (private key {@link INPUT_TRANSFORMATIONS_KEY}) and shows it on
 * every surface as reasoning the provider dropped; a non-zero count is never silent. Pure.
 */
import { isJsonObject, type JsonValue } from '../core/json.js';
import type { CarrierDecision } from './replay-types.js';

/** Private key of an assistant message holding the transformations of the request that produced it. */
export const INPUT_TRANSFORMATIONS_KEY = '_input_transformations';

/** One entry, as Anthropic sends it, plus the stored message it names when Hermes could tell. */
export interface InputTransformation {
  type: string;
  /** `messages.{i}.content.{j}` of the request body. */
  path: string;
  reason: string;
  /** Index of the stored message the path pointed at (history index), when known. */
  message?: number;
}

/** The entries of an `input_transformations` value (anything malformed is skipped). */
export function parseInputTransformations(value: unknown): InputTransformation[] {
  if (!Array.isArray(value)) return [];
  const entries: InputTransformation[] = [];
  for (const entry of value) {
    if (!isJsonObject(entry)) continue;
    const type = entry['type'];
    if (typeof type !== 'string') continue;
    entries.push({
      type,
      path: typeof entry['path'] === 'string' ? entry['path'] : '',
      reason: typeof entry['reason'] === 'string' ? entry['reason'] : '',
    });
  }
  return entries;
}

/** `existing` plus the entries of `added` it does not hold yet (streams may repeat the list). */
export function mergeInputTransformations(
  existing: readonly InputTransformation[],
  added: readonly InputTransformation[],
): InputTransformation[] {
  const seen = new Set(existing.map(transformationKey));
  const merged = [...existing];
  for (const entry of added) {
    if (seen.has(transformationKey(entry))) continue;
    seen.add(transformationKey(entry));
    merged.push(entry);
  }
  return merged;
}

function transformationKey(entry: InputTransformation): string {
  return `${entry.type}\0${entry.path}\0${entry.reason}`;
}

/** The transformations stored on a message (none when it has none). */
export function storedInputTransformations(message: { [privateKey: `_${string}`]: unknown }): InputTransformation[] {
  const value = message[INPUT_TRANSFORMATIONS_KEY];
  const parsed = parseInputTransformations(value);
  if (!Array.isArray(value)) return parsed;
  return parsed.map((entry, index) => {
    const raw = value[index] as { message?: unknown } | undefined;
    return typeof raw?.message === 'number' ? { ...entry, message: raw.message } : entry;
  });
}

/** Entries that took reasoning away from the model (`thinking_dropped`, or any `*_dropped`). */
export function droppedTransformations(entries: readonly InputTransformation[]): InputTransformation[] {
  return entries.filter((entry) => entry.type.endsWith('_dropped'));
}

/** `messages.3.content.0` → [3, 0]; undefined for another shape. */
export function transformationPosition(path: string): readonly [number, number] | undefined {
  const match = /^messages\.(\d+)\.content\.(\d+)$/.exec(path);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** The entries with the stored message each one names (`sources[i][j]`: history index of block j of body message i). */
export function locateTransformations(
  entries: readonly InputTransformation[],
  sources: readonly (readonly number[])[] | undefined,
): InputTransformation[] {
  return entries.map((entry) => {
    const position = transformationPosition(entry.path);
    const message = position ? sources?.[position[0]]?.[position[1]] : undefined;
    return message === undefined || message < 0 ? entry : { ...entry, message };
  });
}

/** Plain words for a reason code. */
export function transformationReasonText(reason: string): string {
  if (reason === 'prefix_binding_mismatch') return 'its prefix changed since it was produced';
  if (reason === 'model_binding_mismatch') return 'another model produced it';
  return reason === '' ? 'no reason given' : reason;
}

/**
 * One line a person reads: how many thinking blocks the provider dropped and why, e.g.
 * `the provider dropped 2 thinking blocks from the request (prefix_binding_mismatch: message 3, message 5)`.
 * Null when nothing was dropped.
 */
export function describeProviderDrops(entries: readonly InputTransformation[]): string | null {
  const dropped = droppedTransformations(entries);
  if (dropped.length === 0) return null;
  const byReason = new Map<string, string[]>();
  for (const entry of dropped) {
    const where = entry.message === undefined ? entry.path : `message ${entry.message}`;
    byReason.set(entry.reason, [...(byReason.get(entry.reason) ?? []), where]);
  }
  const reasons = [...byReason.entries()].map(([reason, where]) => `${reason || 'unknown'}: ${where.join(', ')}`);
  const noun = dropped.length === 1 ? 'thinking block' : 'thinking blocks';
  return `the provider dropped ${dropped.length} ${noun} from the request (${reasons.join('; ')})`;
}

/** The stored form of entries (JSON, for the private message key). */
export function transformationsJson(entries: readonly InputTransformation[]): JsonValue[] {
  return entries.map((entry) =>
    entry.message === undefined
      ? { type: entry.type, path: entry.path, reason: entry.reason }
      : { type: entry.type, path: entry.path, reason: entry.reason, message: entry.message },
  );
}

/** The decision an entry becomes on the record of the request it reports on (the inspector, `--explain`). */
export function transformationDecision(entry: InputTransformation): CarrierDecision {
  const where = entry.path === '' ? '' : ` at ${entry.path}`;
  const dropped = entry.type.endsWith('_dropped');
  const what = dropped ? 'dropped by the provider' : `let through by the provider (${entry.type})`;
  return {
    messageIndex: entry.message ?? -1,
    field: 'thinking',
    action: dropped ? 'dropped' : 'kept',
    reason: `${what}: ${entry.reason || 'no reason given'}, ${transformationReasonText(entry.reason)}${where}`,
  };
}

/**
 * The entries stored on `message`, each with the stored message its path names
 * (`sources[i][j]`: history index of block j of body message i), and the message with them kept
 * that way. Null when the message has none.
 */
export function locateStoredTransformations<M extends { [privateKey: `_${string}`]: unknown }>(
  message: M,
  sources: readonly (readonly number[])[] | undefined,
): { message: M; entries: InputTransformation[] } | null {
  const entries = storedInputTransformations(message);
  if (entries.length === 0) return null;
  const located = locateTransformations(entries, sources);
  return { message: { ...message, [INPUT_TRANSFORMATIONS_KEY]: transformationsJson(located) }, entries: located };
}
