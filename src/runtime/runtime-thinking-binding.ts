import type { AssistantMessage } from '../core/message.js';
import type { Logger } from '../logging/logger.js';
import {
  bindAnswerBlocks,
  bindAnswerSystem,
  describeProviderDrops,
  locateStoredTransformations,
  storedInputTransformations,
  transformationDecision,
} from '../replay/replay-recovery.js';
import type { CarrierDecision, RouteProfile } from '../replay/replay-route-profile.js';
import type { PreparedRequest } from '../transports/shared/transport.js';

/**
 * What an Anthropic answer teaches about thinking-block binding (SPEC §26.4), settled before the
 * answer is stored: its signed blocks get their binding context (model, prefix digest) on a route
 * whose model checks it, else on a native route the model and `system` digest (`SystemBinding`);
 * and the answer's `input_transformations` — reasoning the provider dropped from the request —
 * get the stored message each one names, a decision per entry on the request
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

/** Settles one successful answer of `prepared` (see the file comment). */
export function settleAnthropicAnswer(
  message: AssistantMessage,
  prepared: PreparedRequest,
  context: BindingSettleContext,
): SettledAnswer {
  const { profile } = context;
  if (profile.route.api !== 'anthropic_messages') return { message, decisions: [] };
  const anthropic = profile.anthropic;
  const bound = anthropic.prefixChecked
    ? bindAnswerBlocks(message, prepared.body, profile.route.model, prepared.bindingPrefix)
    : anthropic.treatment === 'native'
      ? bindAnswerSystem(message, prepared.body, profile.route.model)
      : message;
  const located = locateStoredTransformations(bound, prepared.wireSources);
  if (!located) return { message: bound, decisions: [] };
  const line = describeProviderDrops(located.entries);
  if (line) {
    context.logger.warn(
      { session: context.sessionId, routeKey: prepared.routeKey, inputTransformations: located.entries },
      `${line}; see hermes sessions show ${context.sessionId}`,
    );
    context.note?.(`${line} (reasoning the model did not see this turn)`);
  }
  return { message: located.message, decisions: located.entries.map(transformationDecision) };
}

/** How many thinking blocks the provider dropped from the request that produced `message`. */
export function providerDroppedCount(message: AssistantMessage): number {
  return storedInputTransformations(message).filter((entry) => entry.type.endsWith('_dropped')).length;
}
