import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { hostnameMatches, hostnameOf } from './replay-host.js';
import { isGeminiOrGemma } from './replay-model-ids.js';

/**
 * Lifting the private carrier record onto the wire (SPEC §7.4–§7.5). The record is accumulated
 * from responses elsewhere (`replay-carrier-record.ts`); this side decides, per route, which of
 * its fields reach the provider. Net effect: a record is lifted only for its own route; on every
 * other route nothing of it reaches the provider.
 */

/** The private record's `type` inside `reasoning_details` (SPEC §7.1). */
export const NATIVE_ASSISTANT_RECORD_TYPE = 'hermes.native_assistant';

/** Record fields that may be lifted to the top level of a wire assistant message. */
export const RECORD_FIELDS = ['extra_content', 'reasoning_opaque', 'reasoning_text'] as const;

/** One liftable record field. */
export type RecordField = (typeof RECORD_FIELDS)[number];

/** Which record fields a route reads (SPEC §7.4 `_route_reads`). */
export interface RouteReads {
  /** Gemini message-level `extra_content` signature: the model id contains `gemini` or `gemma`. */
  extraContent: boolean;
  /** Copilot `reasoning_opaque` / `reasoning_text` and per-call `function.thought_signature`. */
  copilot: boolean;
}

/** SPEC §7.4: the record fields a route reads, from its model id and base URL host. */
export function routeReads(route: { model: string; baseUrl?: string | undefined }): RouteReads {
  return {
    extraContent: isGeminiOrGemma(route.model),
    copilot: hostnameMatches(hostnameOf(route.baseUrl), 'githubcopilot.com'),
  };
}

/** What shaping did to one message, for the decision log. */
export interface ShapeOutcome {
  /** The record found in `reasoning_details`, if any. */
  record: JsonObject | undefined;
  /** Field values found (record overlaid by live top-level keys). */
  values: Partial<Record<RecordField, JsonValue>>;
  /** Fields set on the wire copy. */
  lifted: RecordField[];
}

/** Options of {@link shapeMessageCarriers}. */
export interface ShapeOptions {
  /** Opaque values may go back to this route (SPEC §23.2 origin scoping); false drops them all. */
  allowOpaque?: boolean;
  /** Keep the record inside `reasoning_details` (the route's profile owns this record type, SPEC §7.6). */
  keepRecordType?: string | undefined;
}

function findRecord(details: readonly JsonValue[] | undefined): JsonObject | undefined {
  if (details === undefined) return undefined;
  for (const entry of details) {
    if (isJsonObject(entry) && entry['type'] === NATIVE_ASSISTANT_RECORD_TYPE) return entry;
  }
  return undefined;
}

function isPresent(value: JsonValue | undefined): value is JsonValue {
  return value !== undefined && value !== null && value !== '';
}

/**
 * SPEC §7.5 for one assistant message: `source` is the stored message (read only), `wire` its
 * wire copy (edited). Removes top-level record fields from the copy, removes the record from
 * `reasoning_details` (dropping the key when it empties), then sets only the fields the route
 * reads. `reasoning_text` is set only together with `reasoning_opaque` (Copilot: "only send
 * reasoning_text when reasoning_opaque is also present", WIRE.md §1.8).
 */
export function shapeMessageCarriers(
  source: JsonObject,
  wire: JsonObject,
  reads: RouteReads,
  options: ShapeOptions = {},
): ShapeOutcome {
  const details = Array.isArray(wire['reasoning_details']) ? wire['reasoning_details'] : undefined;
  const shaped = shapeRecordFields(source, details, reads, options);
  for (const field of RECORD_FIELDS) delete wire[field];
  if (shaped.details !== details) {
    if (shaped.details === undefined) delete wire['reasoning_details'];
    else wire['reasoning_details'] = shaped.details as JsonValue[];
  }
  for (const field of shaped.lifted) wire[field] = shaped.values[field];
  return shaped;
}

/** {@link ShapeOutcome} plus the `reasoning_details` list that remains on the wire. */
export interface ShapedRecordFields extends ShapeOutcome {
  /** The list without the record (the same array when unchanged; undefined when it emptied). */
  details: readonly JsonValue[] | undefined;
}

/**
 * SPEC §7.5 steps 1–5 as values: finds the record in `details`, overlays live top-level fields
 * of `source`, removes the record from the list and says which fields the route lifts. Pure.
 */
export function shapeRecordFields(
  source: JsonObject,
  details: readonly JsonValue[] | undefined,
  reads: RouteReads,
  options: ShapeOptions = {},
): ShapedRecordFields {
  const record = findRecord(details);
  const values: Partial<Record<RecordField, JsonValue>> = {};
  let found = record !== undefined;
  for (const field of RECORD_FIELDS) {
    const live = source[field];
    const value = isPresent(live) ? live : record?.[field];
    if (isPresent(value)) {
      values[field] = value;
      found = true;
    }
  }
  let remaining = details;
  if (record && details && options.keepRecordType !== NATIVE_ASSISTANT_RECORD_TYPE) {
    const kept = details.filter((entry) => entry !== record);
    remaining = kept.length === 0 ? undefined : kept;
  }
  const lifted: RecordField[] = [];
  if (found && options.allowOpaque !== false) {
    if (reads.extraContent && values.extra_content !== undefined) lifted.push('extra_content');
    if (reads.copilot && values.reasoning_opaque !== undefined) {
      lifted.push('reasoning_opaque');
      if (values.reasoning_text !== undefined) lifted.push('reasoning_text');
    }
  }
  return { record, values, lifted, details: remaining };
}

/**
 * SPEC §7.5 `shape_wire_carriers` over a list of wire messages: never mutates the input; returns
 * the same list object when nothing changed. Off Copilot, per-call `function.thought_signature`
 * is removed; on Copilot it is kept.
 */
export function shapeWireCarriers(
  messages: readonly JsonObject[],
  route: { model: string; baseUrl?: string | undefined },
): readonly JsonObject[] {
  const reads = routeReads(route);
  let result: JsonObject[] | undefined;
  messages.forEach((message, index) => {
    if (message['role'] !== 'assistant') return;
    const wire: JsonObject = { ...message };
    shapeMessageCarriers(message, wire, reads);
    if (!reads.copilot && Array.isArray(message['tool_calls'])) {
      const calls = message['tool_calls'].map((call) => {
        if (!isJsonObject(call) || !isJsonObject(call['function']) || !('thought_signature' in call['function']))
          return call;
        const { thought_signature: _dropped, ...rest } = call['function'];
        return { ...call, function: rest };
      });
      if (calls.some((call, callIndex) => call !== (message['tool_calls'] as JsonValue[])[callIndex]))
        wire['tool_calls'] = calls;
    }
    if (!shallowEqual(message, wire)) {
      result ??= [...messages];
      result[index] = wire;
    }
  });
  return result ?? messages;
}

function shallowEqual(left: JsonObject, right: JsonObject): boolean {
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => left[key] === right[key]);
}
