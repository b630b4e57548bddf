/**
 * Bedrock Converse per-model reasoning policy (SPEC §10, WIRE.md §3): ONE table, a row per model
 * family, each row citing the evidence it rests on. Which family a model id belongs to is read in
 * replay-model-ids.ts, the one module that reads model ids (STYLE rule 2 (docs/architecture.md)).
 *
 * Columns:
 * - `replay`: what prior reasoning goes back.
 *   - `signed`: `reasoningContent.reasoningText{text, signature}` verbatim, redacted content as a
 *     separate `reasoningContent.redactedContent` block (SPEC §10, #115865).
 *   - `strip`: no prior reasoning at all.
 *   - `unsigned`: the readable reasoning goes back as a TEXT block `<think>\n…\n</think>` in its
 *     original position. Decided from the evidence: Bedrock requires a signature on every
 *     `reasoningContent` block in a request (WIRE.md §3.4), while pydantic-ai sends Kimi and Qwen
 *     reasoning back as think-tag text and Bedrock answers 200
 *     (`fixtures/bedrock-converse/pydantic-moonshotai-tool-call.cassette.json`,
 *     `pydantic-thinking-high-qwen-variant.cassette.json`). So "unsigned" never means a
 *     `reasoningContent` block without a signature.
 * - `request`: how reasoning is asked for in `additionalModelRequestFields` (WIRE.md §3.1).
 * - `reasoningOnlyTurn`: the shape of an assistant turn that would carry nothing but reasoning
 *   (WIRE.md §3.4: Sonnet 5 answers "This model does not support assistant message prefill. The
 *   conversation must end with a user message." for a reasoning-only turn, and an empty turn is
 *   "The content field in the Message object at messages.46 is empty. Add a ContentBlock object
 *   to the content field and try again.").
 */
import { bedrockModelFamily, type BedrockModelFamily } from './replay-model-ids.js';

export { bedrockBaseModelId } from './replay-model-ids.js';

/** What prior reasoning a Bedrock model gets back. */
export type BedrockReplayPolicy = 'signed' | 'strip' | 'unsigned';

/** How reasoning is requested in `additionalModelRequestFields` (WIRE.md §3.1). */
export type BedrockReasoningRequest =
  | { style: 'anthropic-thinking'; mode: 'enabled' | 'adaptive' }
  | { style: 'reasoning-effort' }
  | { style: 'reasoning-config' }
  | { style: 'none' };

/**
 * Shape of an assistant turn left with reasoning only:
 * - `elide-placeholder`: the reasoning is not sent and the turn carries the text `(thinking elided)`
 *   (same placeholder as SPEC §9.3 `third_party`);
 * - `think-text`: the reasoning travels as the think-tag text block, which is a valid turn on its
 *   own (Qwen turn 2 of `pydantic-thinking-high-qwen-variant.cassette.json` is exactly that, 200).
 */
export type BedrockReasoningOnlyTurnShape = 'elide-placeholder' | 'think-text';

/** What the Bedrock model table says about one model (data only). */
export interface BedrockModelPolicy {
  /** Family name shown in decisions and `replay preview`. */
  family: string;
  replay: BedrockReplayPolicy;
  request: BedrockReasoningRequest;
  reasoningOnlyTurn: BedrockReasoningOnlyTurnShape;
  /** Where the row comes from (WIRE.md section, fixture, issue). */
  evidence: string;
}

/**
 * One row of the Bedrock model table. `family` names the model ids it covers: which family a
 * model id is decided in replay-model-ids.ts ({@link bedrockModelFamily}).
 */
export type BedrockModelPolicyRow = BedrockModelPolicy;

/** Placeholder text for an assistant turn whose only content could not be sent. */
export const BEDROCK_ELIDED_TURN_TEXT = '(thinking elided)';

/** Wraps readable reasoning the way Bedrock accepted it back (pydantic-ai think-tag text). */
export function bedrockThinkText(reasoning: string): string {
  return `<think>\n${reasoning}\n</think>`;
}

/** The table, one row per {@link BedrockModelFamily}. */
export const BEDROCK_MODEL_POLICIES: readonly (BedrockModelPolicyRow & { family: BedrockModelFamily })[] = [
  {
    family: 'claude-adaptive',
    replay: 'signed',
    request: { style: 'anthropic-thinking', mode: 'adaptive' },
    reasoningOnlyTurn: 'elide-placeholder',
    evidence:
      'WIRE.md §3.1/§3.4; fixtures pydantic-thinking-part-anthropic-adaptive.cassette.json (signed reasoningText replayed, 200); ' +
      'reasoning-only turn → "does not support assistant message prefill" (hermes-agent#105780)',
  },
  {
    family: 'claude',
    replay: 'signed',
    request: { style: 'anthropic-thinking', mode: 'enabled' },
    reasoningOnlyTurn: 'elide-placeholder',
    evidence:
      'WIRE.md §3.4; fixtures pydantic-anthropic-tool-with-thinking.cassette.json (reasoningText{text,signature} replayed, 200), ' +
      'pydantic-thinking-part-redacted.cassette.json (redactedContent replayed, 200); missing → ValidationException ' +
      '"Expected `thinking` or `redacted_thinking`, but found `text`" (langchain-aws#844)',
  },
  {
    family: 'deepseek',
    replay: 'strip',
    request: { style: 'none' },
    reasoningOnlyTurn: 'elide-placeholder',
    evidence:
      'WIRE.md §3.4: "ValidationException: User messages cannot contain reasoning content. Please remove the reasoning ' +
      'content and try again." (aws-samples/bedrock-chat#845/#851, zed#32341); R1 always reasons, no request field (§3.1). ' +
      'pydantic-thinking-part-deepseek.cassette.json shows think-tag text is tolerated, but R1 is not trained to read ' +
      'its earlier chain of thought back, so nothing is sent',
  },
  {
    family: 'kimi',
    replay: 'unsigned',
    request: { style: 'none' },
    reasoningOnlyTurn: 'think-text',
    evidence:
      'fixture pydantic-moonshotai-tool-call.cassette.json: reasoning sent back as "<think>\\n…\\n</think>" text before ' +
      'toolUse, 200; Kimi K2 Thinking always reasons (WIRE.md §3.1)',
  },
  {
    family: 'qwen',
    replay: 'unsigned',
    request: { style: 'reasoning-config' },
    reasoningOnlyTurn: 'think-text',
    evidence:
      'fixture pydantic-thinking-high-qwen-variant.cassette.json: reasoning_config request, reasoning-only turn replayed ' +
      'as think-tag text, 200',
  },
  {
    family: 'gpt-oss',
    replay: 'unsigned',
    request: { style: 'reasoning-effort' },
    reasoningOnlyTurn: 'think-text',
    evidence:
      'fixture pydantic-thinking-high-openai-variant.cassette.json (reasoning_effort request, unsigned reasoningText); ' +
      'no recorded replay: follows the pydantic-ai rule for unsigned Bedrock models [C]; an unsigned reasoningContent ' +
      'block would be rejected (WIRE.md §3.4)',
  },
  {
    family: 'minimax',
    replay: 'unsigned',
    request: { style: 'none' },
    reasoningOnlyTurn: 'think-text',
    evidence: 'WIRE.md §3.4 lists MiniMax among unsigned reasoners; think-tag text as for Kimi/Qwen [C]',
  },
];

/** Models not in the table: send no prior reasoning (never rejected, never a foreign format). */
export const BEDROCK_DEFAULT_POLICY: BedrockModelPolicyRow = {
  family: 'default',
  replay: 'strip',
  request: { style: 'none' },
  reasoningOnlyTurn: 'elide-placeholder',
  evidence: 'no evidence for this model: strip is the one policy Bedrock never rejects',
};

/** The policy of a Bedrock model id: its family's row, else {@link BEDROCK_DEFAULT_POLICY}. */
export function resolveBedrockModelPolicy(modelId: string): BedrockModelPolicy {
  const family = bedrockModelFamily(modelId);
  return BEDROCK_MODEL_POLICIES.find((row) => row.family === family) ?? BEDROCK_DEFAULT_POLICY;
}
