import type { JsonObject, JsonValue } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import type { ChatReplayContext } from './replay-chat-context.js';
import type { ShapeOutcome } from './replay-carrier-shaping.js';
import { NATIVE_ASSISTANT_RECORD_TYPE } from './replay-carrier-shaping.js';
import { REASONING_ECHO_PAD } from './replay-must-echo.js';
import type { OriginVerdict, ScopedEntry } from './replay-origin-scope.js';
import { replayableText } from './replay-policy.js';
import type { RejectedEntry } from './replay-relay-signature.js';
import type { Carrier, CarrierDecision } from './replay-types.js';
import { jsonStringBytes } from './replay-utf8.js';
import { nativeCarrierType, type NativeCarrierOutcome } from './replay-native-carriers.js';

/**
 * Decision records for one assistant message (SPEC §23.3): every carrier or record field that
 * was kept, padded, lifted or dropped, with a short reason and the byte size (never the value).
 */

/** Why a carrier the message had did not reach the wire. */
export function explainDrop(carrier: Carrier, context: ChatReplayContext): string {
  const table = context.decision.tableCarriers ?? [];
  if (table.includes(carrier) && context.rejected.includes(carrier)) return 'learned verdict';
  if (!table.includes(carrier)) {
    if (context.decision.row === 'strict') return 'strict route';
    return `not read by ${context.decision.row} route`;
  }
  return 'no replayable text';
}

function padReason(context: ChatReplayContext): string {
  const family = context.decision.mustEchoFamily;
  return family !== null ? `must-echo pad (${family})` : 'opt-in echo pad';
}

/** Inputs of {@link recordAssistantDecisions}. */
export interface AssistantDecisionInput {
  message: AssistantMessage;
  wire: JsonObject;
  index: number;
  context: ChatReplayContext;
  verdict: OriginVerdict;
  scoped: readonly ScopedEntry[];
  shaped: ShapeOutcome;
  decisions: DecisionLog;
  /** The message's replayable text when the caller already has it (SPEC §6.2). */
  text?: string | null;
  /** Entries left out because a relay rejected their fingerprint (SPEC §24.8). */
  rejected?: readonly RejectedEntry[];
  /** Namespaced native carriers kept or stripped (SPEC §24.11). */
  native?: readonly NativeCarrierOutcome[];
}

/** Appends the decisions for the reasoning carriers and the private record of one message. */
export function recordAssistantDecisions(input: AssistantDecisionInput): void {
  const { message, wire, index, context, decisions } = input;
  const text = input.text !== undefined ? input.text : replayableText(message);

  const sourceContent = message.reasoning_content;
  const wireContent = wire['reasoning_content'];
  if (typeof wireContent === 'string') {
    if (wireContent === REASONING_ECHO_PAD && text === null)
      decisions.add(index, 'reasoning_content', 'padded', padReason(context), 1);
    else if (wireContent === sourceContent)
      decisions.add(index, 'reasoning_content', 'kept', 'route reads it', wireContent);
    else decisions.add(index, 'reasoning_content', 'kept', 'route reads it (text from reasoning)', wireContent);
  } else if (typeof sourceContent === 'string') {
    // The same text going out as `reasoning` (the Cerebras row): a copy left out, nothing lost.
    if (sourceContent !== '' && wire['reasoning'] === sourceContent) {
      decisions.add(index, 'reasoning_content', 'covered', 'same text sent as reasoning', sourceContent);
    } else {
      decisions.add(index, 'reasoning_content', 'dropped', explainDrop('reasoning_content', context), sourceContent);
    }
  }

  const sourceReasoning = message.reasoning;
  const wireReasoning = wire['reasoning'];
  if (typeof wireReasoning === 'string') {
    const reason =
      wireReasoning === sourceReasoning ? 'route reads it' : 'route reads it (text from reasoning_content)';
    decisions.add(index, 'reasoning', 'kept', reason, wireReasoning);
  } else if (typeof sourceReasoning === 'string' && sourceReasoning !== '') {
    // A healthy DeepSeek message stores its text in both fields; the route reads one of them.
    if (wire['reasoning_content'] === sourceReasoning) {
      decisions.add(index, 'reasoning', 'covered', 'same text sent as reasoning_content', sourceReasoning);
    } else {
      decisions.add(index, 'reasoning', 'dropped', explainDrop('reasoning', context), sourceReasoning);
    }
  }

  // Standard entries are explained as one carrier; namespaced native carriers (SPEC §24.11) and
  // the Hermes record (SPEC §7.5) one by one below.
  const sourceDetails = message.reasoning_details;
  let standardCount = 0;
  if (Array.isArray(sourceDetails)) {
    for (const entry of sourceDetails) if (nativeCarrierType(entry) === undefined) standardCount += 1;
  }
  if (standardCount > 0) {
    const wireDetails = wire['reasoning_details'];
    const wireStandard = Array.isArray(wireDetails)
      ? wireDetails.filter((entry) => nativeCarrierType(entry) === undefined)
      : [];
    const read = context.carriers.includes('reasoning_details');
    if (wireStandard.length > 0 && read) {
      decisions.add(index, 'reasoning_details', 'kept', 'route reads it', wireStandard);
    } else if (!(read && (input.rejected?.length || input.scoped.length))) {
      // Entries left out by origin scoping or a rejected fingerprint are explained one by one
      // below (SPEC §23.2, §24.8).
      decisions.add(
        index,
        'reasoning_details',
        'dropped',
        explainDrop('reasoning_details', context),
        standardCount === sourceDetails?.length
          ? (sourceDetails as JsonValue)
          : (sourceDetails ?? []).filter((entry) => nativeCarrierType(entry) === undefined),
      );
    }
  }
  for (const entry of input.scoped) {
    const field = `reasoning_details[${entry.index}]${entry.part === 'signature' ? '.signature' : ''} (${entry.type})`;
    decisions.add(index, field, 'dropped', 'foreign origin', entry.bytes);
  }
  for (const entry of input.rejected ?? []) {
    decisions.add(
      index,
      `reasoning_details[${entry.index}] (${entry.type})`,
      'dropped',
      'fingerprint rejected',
      entry.entry,
    );
  }

  for (const outcome of input.native ?? []) {
    decisions.add(
      index,
      `reasoning_details[${outcome.index}] (${outcome.type})`,
      outcome.action,
      outcome.reason,
      outcome.entry,
    );
  }

  const { shaped, verdict } = input;
  const wireDetails = wire['reasoning_details'];
  if (shaped.record && Array.isArray(wireDetails) && wireDetails.includes(shaped.record)) {
    decisions.add(index, NATIVE_ASSISTANT_RECORD_TYPE, 'kept', 'provider profile owns this record type', shaped.record);
  }
  for (const field of ['extra_content', 'reasoning_opaque', 'reasoning_text'] as const) {
    const value = shaped.values[field];
    if (value === undefined) continue;
    const bytes = value;
    if (shaped.lifted.includes(field)) {
      decisions.add(index, field, 'lifted', 'route reads it', bytes);
      continue;
    }
    const read = field === 'extra_content' ? context.reads.extraContent : context.reads.copilot;
    const reason = !read
      ? 'not read by route'
      : !verdict.sameIssuer
        ? 'foreign origin'
        : 'sent only with reasoning_opaque';
    decisions.add(index, field, 'dropped', reason, bytes);
  }
}

/** What a decision's byte size is measured from: a value (its UTF-8 string bytes) or a known count. */
export type SizeSource = JsonValue | number | undefined;

/**
 * The decisions of one request, recorded cheaply and turned into {@link CarrierDecision}
 * objects only when read. Recording is five array pushes; sizes are measured at
 * materialisation: sizing every reasoning text and encrypted blob of the history on each request
 * would dominate the build (bench/replay-build), and sizes are only needed when a request is
 * explained or logged.
 */
export class DecisionLog {
  private indexes: number[] = [];
  private fields: string[] = [];
  private actions: CarrierDecision['action'][] = [];
  private reasons: string[] = [];
  private sizes: SizeSource[] = [];

  /** Decisions recorded so far. */
  get length(): number {
    return this.indexes.length;
  }

  /**
   * Starts this (empty) log with the first `count` decisions of `from`, which are never changed:
   * the decisions of a history prefix another request lowered, kept as they were recorded.
   */
  startWith(from: DecisionLog, count: number): void {
    this.indexes = from.indexes.slice(0, count);
    this.fields = from.fields.slice(0, count);
    this.actions = from.actions.slice(0, count);
    this.reasons = from.reasons.slice(0, count);
    this.sizes = from.sizes.slice(0, count);
  }

  /** Every decision, preallocated (the common explain path). */
  private materializeAll(): CarrierDecision[] {
    const decisions: CarrierDecision[] = new Array<CarrierDecision>(this.indexes.length);
    for (let position = 0; position < this.indexes.length; position++) decisions[position] = this.at(position);
    return decisions;
  }

  private at(position: number): CarrierDecision {
    const size = this.sizes[position];
    const decision: CarrierDecision = {
      messageIndex: this.indexes[position] as number,
      field: this.fields[position] as string,
      action: this.actions[position] as CarrierDecision['action'],
      reason: this.reasons[position] as string,
    };
    if (size !== undefined) decision.bytes = typeof size === 'number' ? size : jsonStringBytes(size);
    return decision;
  }

  /** Records one decision; `size` is measured later (undefined: no size). */
  add(messageIndex: number, field: string, action: CarrierDecision['action'], reason: string, size: SizeSource): void {
    this.indexes.push(messageIndex);
    this.fields.push(field);
    this.actions.push(action);
    this.reasons.push(reason);
    this.sizes.push(size);
  }

  /**
   * The recorded decisions as plain objects, in recording order; with `fromMessage`, only those
   * of messages at or after that index (only their sizes are measured).
   */
  materialize(fromMessage = 0): CarrierDecision[] {
    if (fromMessage <= 0) return this.materializeAll();
    const decisions: CarrierDecision[] = [];
    for (let position = 0; position < this.indexes.length; position++) {
      if ((this.indexes[position] as number) >= fromMessage) decisions.push(this.at(position));
    }
    return decisions;
  }
}
