import type { JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { NATIVE_ASSISTANT_RECORD_TYPE } from './replay-carrier-shaping.js';

/**
 * Provider-declared native carriers (SPEC §24.11, §7.6). A provider in the registry may declare a
 * namespaced `reasoning_details` entry type, `<provider>.native_assistant`, that its own client
 * keeps there (the `gemini-oauth` provider declares Google's `google.native_assistant`). On the
 * chat-completions wire:
 * - an entry of the declared type travels only to routes of the declaring provider, and only
 *   while that route reads `reasoning_details` after learned verdicts (a route that rejected the
 *   field never gets it again, SPEC §23.1);
 * - every other namespaced `*.native_assistant` entry is stripped, even when no registered
 *   provider declares its type;
 * - standard entries (`reasoning.text`, `reasoning.summary`, `reasoning.encrypted`, ...) are not
 *   touched by this rule.
 * The Hermes record (`hermes.native_assistant`) is shaped by SPEC §7.5 before this step; it is
 * kept in the list only when a profile declares it. Stored history keeps every entry: this works
 * on the wire copy's list and never edits the stored one.
 */

/** One namespaced native entry of a message and what happened to it. */
export interface NativeCarrierOutcome {
  /** Index of the entry in the stored `reasoning_details` list. */
  index: number;
  /** The entry's type (`google.native_assistant`, ...). */
  type: string;
  /** The entry itself (sized, never logged). */
  entry: JsonValue;
  action: 'kept' | 'dropped';
  reason: string;
}

/** The suffix every namespaced native carrier type ends with (SPEC §7.6). */
export const NATIVE_ASSISTANT_SUFFIX = '.native_assistant';

/** The type of a namespaced native carrier entry, or undefined for any other entry. */
export function nativeCarrierType(entry: JsonValue): string | undefined {
  if (!isJsonObject(entry)) return undefined;
  const type = entry['type'];
  return typeof type === 'string' && type.endsWith(NATIVE_ASSISTANT_SUFFIX) ? type : undefined;
}

/** Inputs of {@link scopeNativeCarriers}. */
export interface NativeCarrierScope {
  /** The native carrier type the route's provider declares, if any. */
  ownType: string | undefined;
  /** The route reads `reasoning_details` after learned verdicts (SPEC §6.1, §24.11). */
  detailsRead: boolean;
  /** Why `reasoning_details` is not read, when it is not (strict route, learned verdict, ...). */
  unreadReason: string;
}

/**
 * Applies SPEC §24.11 to a wire copy's `reasoning_details` list. `stored` is the message's own
 * list, used only to name each entry by its stored index. Returns the same array when nothing
 * is stripped, undefined when the list empties, and one outcome per namespaced provider entry
 * (the Hermes record is explained by SPEC §7.5 shaping, not here).
 */
export function scopeNativeCarriers(
  details: readonly JsonValue[] | undefined,
  stored: readonly JsonValue[] | null | undefined,
  scope: NativeCarrierScope,
): { details: readonly JsonValue[] | undefined; outcomes: NativeCarrierOutcome[] } {
  if (details === undefined) return { details, outcomes: [] };
  const outcomes: NativeCarrierOutcome[] = [];
  let kept: JsonValue[] | undefined;
  for (let position = 0; position < details.length; position++) {
    const entry = details[position] as JsonValue;
    const type = nativeCarrierType(entry);
    let travels = true;
    if (type !== undefined) {
      const own = type === scope.ownType;
      travels = own && scope.detailsRead;
      if (type !== NATIVE_ASSISTANT_RECORD_TYPE) {
        const reason = !own
          ? 'native carrier of another provider'
          : travels
            ? 'provider declares this native carrier'
            : scope.unreadReason;
        const index = stored ? stored.indexOf(entry) : -1;
        outcomes.push({
          index: index < 0 ? position : index,
          type,
          entry,
          action: travels ? 'kept' : 'dropped',
          reason,
        });
      }
    }
    if (!travels && kept === undefined) kept = details.slice(0, position) as JsonValue[];
    else if (travels && kept !== undefined) kept.push(entry);
  }
  if (kept === undefined) return { details, outcomes };
  return { details: kept.length === 0 ? undefined : kept, outcomes };
}
