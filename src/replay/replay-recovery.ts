/**
 * What the runtime may learn from a rejected request, the token estimate compaction prices a
 * history with, and the de-duplication of a model's repeated tool calls: the replay engine's surface for src/runtime besides the route profile
 * (replay-route-profile.ts). The runtime imports replay through these two modules only; each
 * rule below lives in its own module, with its spec section.
 */

export {
  ANTHROPIC_REJECTED_THINKING_KEY,
  fingerprintCondemnedBlocks,
  fingerprintSignedBlocks,
  isBoundConversationError,
  isThinkingModifiedError,
  isThinkingSignatureError,
  readRejectedThinking,
  withRejectedThinking,
} from './anthropic-signature-memory.js';
export { dropEmptyThinking, namedBlockPosition, padMissingThinking, thinkingFirst } from './anthropic-body-repairs.js';
export { THINKING_ELIDED_TEXT } from './anthropic-replay.js';
export { withoutRefusedSignatures } from './gemini-body-repairs.js';
export { GEMINI_PLACEHOLDER_SIGNATURE } from './replay-stand-ins.js';
export { bindAnswerBlocks, bindAnswerSystem } from './anthropic-binding-capture.js';
export {
  describeProviderDrops,
  droppedTransformations,
  locateStoredTransformations,
  storedInputTransformations,
  transformationDecision,
} from './anthropic-input-transformations.js';
export { isBedrockRedactedRejection, stripBedrockRedactedReasoning } from './bedrock-converse-self-heal.js';
export { effortRejection, looksLikeEffortRejection, nearestAcceptedEffort } from './replay-effort-rejection.js';
export { classifyFieldRejection } from './replay-field-rejection.js';
export { relaySignatureFingerprints } from './replay-relay-signature.js';
export { classifyRequiredCarrierRejection, type RequiredCarrierRejection } from './replay-required-carrier.js';
export { estimateMessageTokens } from './replay-token-estimate.js';
export { isInvalidEncryptedContentError } from './responses-rejections.js';
export { withoutDuplicateToolCalls } from './replay-tool-call-sync.js';
