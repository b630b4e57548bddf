import type { JsonObject } from '../../core/json.js';
import { eventFrame } from '../shared/emulator-event-stream.js';
import { sealPayload, signText } from '../shared/emulator-sealing.js';
import { estimateTokens, splitIntoFragments } from '../shared/emulator-text.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import { REDACTED_PURPOSE, THINKING_SIGNATURE_PURPOSE } from './bedrock-converse-emulator-rules.js';

/**
 * Turns the scripted model's output into Converse content blocks, a Converse JSON response, or
 * ConverseStream event-stream frames (WIRE.md §3.2, §3.3) in the shared event-stream framing; no
 * `contentBlockStart` for reasoning or text; the signature as its own delta; a `p` padding field
 * on every payload as the real service sends.
 */

/** How reasoning is issued for this request. */
export type ReasoningIssue = 'signed' | 'redacted' | 'unsigned' | 'none';

/** The ordered content blocks of the answer. */
export function answerBlocks(output: ScriptOutput, issue: ReasoningIssue, secret: string): JsonObject[] {
  const blocks: JsonObject[] = [];
  if (issue === 'signed') {
    const signature = signText(THINKING_SIGNATURE_PURPOSE, output.reasoning, secret);
    blocks.push({ reasoningContent: { reasoningText: { text: output.reasoning, signature } } });
  } else if (issue === 'redacted') {
    // Bedrock's base64 of Anthropic's (already base64) `data` string: double encoded (WIRE.md §3.2).
    const data = sealPayload(REDACTED_PURPOSE, { reasoning: output.reasoning }, secret);
    blocks.push({ reasoningContent: { redactedContent: Buffer.from(data, 'utf8').toString('base64') } });
  } else if (issue === 'unsigned') {
    blocks.push({ reasoningContent: { reasoningText: { text: output.reasoning } } });
  }
  if (output.content !== '') blocks.push({ text: output.content });
  for (const call of output.toolCalls) {
    blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: JSON.parse(call.arguments) as JsonObject } });
  }
  return blocks;
}

function usageFor(requestRaw: string, output: ScriptOutput): JsonObject {
  const inputTokens = estimateTokens(requestRaw);
  const outputTokens = estimateTokens(output.reasoning + output.content);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

function stopReasonFor(output: ScriptOutput): string {
  return output.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

/** The non-streaming Converse response body. */
export function converseResponse(blocks: JsonObject[], output: ScriptOutput, requestRaw: string): JsonObject {
  return {
    metrics: { latencyMs: 1 },
    output: { message: { content: blocks, role: 'assistant' } },
    stopReason: stopReasonFor(output),
    usage: usageFor(requestRaw, output),
  };
}

const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The ordered ConverseStream frames for an answer. */
export function converseStreamFrames(blocks: JsonObject[], output: ScriptOutput, requestRaw: string): Uint8Array[] {
  let sequence = 0;
  const padded = (payload: JsonObject): JsonObject => {
    sequence += 1;
    return { ...payload, p: PADDING.slice(0, 3 + ((sequence * 7) % 50)) };
  };
  const frames: Uint8Array[] = [eventFrame('messageStart', padded({ role: 'assistant' }))];
  blocks.forEach((block, contentBlockIndex) => {
    const delta = (value: JsonObject) =>
      frames.push(eventFrame('contentBlockDelta', padded({ contentBlockIndex, delta: value })));
    const reasoning = block['reasoningContent'] as JsonObject | undefined;
    const toolUse = block['toolUse'] as JsonObject | undefined;
    if (reasoning && typeof reasoning['redactedContent'] === 'string') {
      delta({ reasoningContent: { redactedContent: reasoning['redactedContent'] } });
    } else if (reasoning) {
      const reasoningText = reasoning['reasoningText'] as { text: string; signature?: string };
      for (const fragment of splitIntoFragments(reasoningText.text)) delta({ reasoningContent: { text: fragment } });
      if (reasoningText.signature !== undefined) delta({ reasoningContent: { signature: reasoningText.signature } });
    } else if (typeof block['text'] === 'string') {
      for (const fragment of splitIntoFragments(block['text'])) delta({ text: fragment });
    } else if (toolUse) {
      const start = { toolUse: { toolUseId: toolUse['toolUseId'] ?? '', name: toolUse['name'] ?? '' } };
      frames.push(eventFrame('contentBlockStart', padded({ contentBlockIndex, start })));
      for (const fragment of splitIntoFragments(JSON.stringify(toolUse['input'] ?? {}), 8))
        delta({ toolUse: { input: fragment } });
    }
    frames.push(eventFrame('contentBlockStop', padded({ contentBlockIndex })));
  });
  frames.push(eventFrame('messageStop', padded({ stopReason: stopReasonFor(output) })));
  frames.push(eventFrame('metadata', padded({ usage: usageFor(requestRaw, output), metrics: { latencyMs: 1 } })));
  return frames;
}
