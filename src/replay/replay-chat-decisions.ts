import type { JsonObject, JsonValue } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import type { ChatReplayContext } from './replay-chat-messages.js';
import type { ShapeOutcome } from './replay-carrier-shaping.js';
import { NATIVE_ASSISTANT_RECORD_TYPE } from './replay-carrier-shaping.js';
import { REASONING_ECHO_PAD } from './replay-must-echo.js';
import type { OriginVerdict, ScopedEntry } from './replay-origin-scope.js';
import { replayableText } from './replay-policy.js';
import type { Carrier, CarrierDecision } from './replay-types.js';
import { jsonStringBytes, utf8ByteLength } from './replay-utf8.js';

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
  decisions: CarrierDecision[];
}

/** Appends the decisions for the reasoning carriers and the private record of one message. */
export function recordAssistantDecisions(input: AssistantDecisionInput): void {
  const { message, wire, index, context, decisions } = input;
  const push = (field: string, action: CarrierDecision['action'], reason: string, bytes?: number): void => {
    decisions.push(
      bytes === undefined
        ? { messageIndex: index, field, action, reason }
        : { messageIndex: index, field, action, reason, bytes },
    );
  };
  const text = replayableText(message);

  const sourceContent = message.reasoning_content;
  const wireContent = wire.reasoning_content;
  if (typeof wireContent === 'string') {
    if (wireContent === REASONING_ECHO_PAD && text === null) push('reasoning_content', 'padded', padReason(context), 1);
    else if (wireContent === sourceContent)
      push('reasoning_content', 'kept', 'route reads it', utf8ByteLength(wireContent));
    else push('reasoning_content', 'kept', 'route reads it (text from reasoning)', utf8ByteLength(wireContent));
  } else if (typeof sourceContent === 'string') {
    push('reasoning_content', 'dropped', explainDrop('reasoning_content', context), utf8ByteLength(sourceContent));
  }

  const sourceReasoning = message.reasoning;
  const wireReasoning = wire.reasoning;
  if (typeof wireReasoning === 'string') {
    const reason =
      wireReasoning === sourceReasoning ? 'route reads it' : 'route reads it (text from reasoning_content)';
    push('reasoning', 'kept', reason, utf8ByteLength(wireReasoning));
  } else if (typeof sourceReasoning === 'string' && sourceReasoning !== '') {
    push('reasoning', 'dropped', explainDrop('reasoning', context), utf8ByteLength(sourceReasoning));
  }

  const sourceDetails = message.reasoning_details;
  const standardCount = Array.isArray(sourceDetails)
    ? sourceDetails.filter((entry) => entry.type !== NATIVE_ASSISTANT_RECORD_TYPE).length
    : 0;
  if (standardCount > 0) {
    const wireDetails = wire.reasoning_details;
    if (Array.isArray(wireDetails) && context.carriers.includes('reasoning_details')) {
      push('reasoning_details', 'kept', 'route reads it', jsonStringBytes(wireDetails));
    } else {
      push(
        'reasoning_details',
        'dropped',
        explainDrop('reasoning_details', context),
        jsonStringBytes(sourceDetails as JsonValue),
      );
    }
  }
  for (const entry of input.scoped) {
    const field = `reasoning_details[${entry.index}]${entry.part === 'signature' ? '.signature' : ''} (${entry.type})`;
    push(field, 'dropped', 'foreign origin', entry.bytes);
  }

  const { shaped, verdict } = input;
  if (shaped.record && context.profileNativeReasoningDetailsType === NATIVE_ASSISTANT_RECORD_TYPE) {
    push(
      NATIVE_ASSISTANT_RECORD_TYPE,
      'kept',
      'provider profile owns this record type',
      jsonStringBytes(shaped.record),
    );
  }
  for (const field of ['extra_content', 'reasoning_opaque', 'reasoning_text'] as const) {
    const value = shaped.values[field];
    if (value === undefined) continue;
    const bytes = jsonStringBytes(value);
    if (shaped.lifted.includes(field)) {
      push(field, 'lifted', 'route reads it', bytes);
      continue;
    }
    const read = field === 'extra_content' ? context.reads.extraContent : context.reads.copilot;
    const reason = !read
      ? 'not read by route'
      : !verdict.sameIssuer
        ? 'foreign origin'
        : 'sent only with reasoning_opaque';
    push(field, 'dropped', reason, bytes);
  }
}
