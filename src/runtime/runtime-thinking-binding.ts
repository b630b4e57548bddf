import type { AssistantMessage } from '../core/message.js';
import type { Logger } from '../logging/logger.js';
import {
  bindAnswerBlocks,
  describeProviderDrops,
  INPUT_TRANSFORMATIONS_KEY,
  type InputTransformation,
  locateTransformations,
  storedInputTransformations,
  transformationReasonText,
  transformationsJson,
} from '../replay/replay-recovery.js';
import type { CarrierDecision, RouteProfile } from '../replay/replay-route-profile.js';
import type { PreparedRequest } from '../transports/shared/transport.js';

/**
 * What an Anthropic answer teaches about thinking-block binding (SPEC §26.4), settled before the
 * answer is stored: its signed blocks get their binding context (model, prefix digest) on a route
 * whose model checks it, and the answer's `input_transformations` — reasoning the provider dropped
 * from the request — get the stored message each one names, a decision per entry on the request
 * record (the inspector, `replay preview --explain`), one WARN line in the log and a note for the
 * person watching. A non-zero count is never silent.
 */

/** Where the notes go. */
export interface BindingSettleContext {
  profile: RouteProfile;
  logger: Logger;
  sessionId: string;
  /** A line for the person watching (the chat renderer prints it). */
  note?: ((message: string) => void) | undefined;
}

/** The answer to store, and the decisions its request record gains. */
export interface SettledAnswer {
  message: AssistantMessage;
  decisions: CarrierDecision[];
}

/** The decision a transformation becomes on its request record. */
function decisionOf(entry: InputTransformation): CarrierDecision {
  const where = entry.path === '' ? '' : ` at ${entry.path}`;
  const dropped = entry.type.endsWith('_dropped');
  return {
    messageIndex: entry.message ?? -1,
    field: 'thinking',
    action: dropped ? 'dropped' : 'kept',
    reason: `${dropped ? 'dropped by the provider' : `let through by the provider (${entry.type})`}: ${entry.reason || 'no reason given'}, ${transformationReasonText(entry.reason)}${where}`,
  };
}

/** Settles one successful answer of `prepared` (see the file comment). */
export function settleAnthropicAnswer(
  message: AssistantMessage,
  prepared: PreparedRequest,
  context: BindingSettleContext,
): SettledAnswer {
  const { profile } = context;
  if (profile.route.api !== 'anthropic_messages') return { message, decisions: [] };
  let settled = profile.anthropic.prefixChecked
    ? bindAnswerBlocks(message, prepared.body, profile.route.model)
    : message;
  const entries = storedInputTransformations(settled);
  if (entries.length === 0) return { message: settled, decisions: [] };
  const located = locateTransformations(entries, prepared.wireSources);
  settled = { ...settled, [INPUT_TRANSFORMATIONS_KEY]: transformationsJson(located) };
  const line = describeProviderDrops(located);
  if (line) {
    context.logger.warn(
      { session: context.sessionId, routeKey: prepared.routeKey, inputTransformations: located },
      `${line}; see hermes sessions show ${context.sessionId}`,
    );
    context.note?.(`${line} (reasoning the model did not see this turn)`);
  }
  return { message: settled, decisions: located.map(decisionOf) };
}

/** How many thinking blocks the provider dropped from the request that produced `message`. */
export function providerDroppedCount(message: AssistantMessage): number {
  return storedInputTransformations(message).filter((entry) => entry.type.endsWith('_dropped')).length;
}
