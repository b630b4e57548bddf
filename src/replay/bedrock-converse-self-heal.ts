import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';

/**
 * Self-heal for a Converse request whose redacted reasoning was refused (SPEC §10): a
 * `ValidationException` whose message mentions `redacted` or `encrypt` means Bedrock could not
 * use a `reasoningContent.redactedContent` blob (e.g. one issued for another account or model
 * version). The retry copy drops every redacted block, drops assistant turns left empty, and
 * merges the user turns that become adjacent (Converse requires alternating roles). Pure; the
 * transport resends once.
 */

/** True when a Bedrock validation message asks for the redacted-content self-heal (SPEC §10). */
export function isBedrockRedactedRejection(errorType: string | undefined, message: string): boolean {
  return (errorType === undefined || /validation/i.test(errorType)) && /redacted|encrypt/i.test(message);
}

/** The healed body plus what was removed. */
export interface BedrockHealResult {
  body: JsonObject;
  /** Redacted blocks removed. */
  removedBlocks: number;
  /** Messages dropped because they were left empty. */
  droppedTurns: number;
}

/** Returns a copy of a Converse request body without redacted reasoning blocks (input untouched). */
export function stripBedrockRedactedReasoning(body: JsonObject): BedrockHealResult {
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  let removedBlocks = 0;
  let droppedTurns = 0;
  const kept: JsonObject[] = [];
  for (const message of messages) {
    if (!isJsonObject(message)) continue;
    const content = Array.isArray(message['content']) ? message['content'] : [];
    const remaining = content.filter((block) => {
      const redacted =
        isJsonObject(block) &&
        isJsonObject(block['reasoningContent']) &&
        'redactedContent' in block['reasoningContent'];
      if (redacted) removedBlocks += 1;
      return !redacted;
    });
    if (remaining.length === 0) {
      droppedTurns += 1;
      continue;
    }
    const previous = kept[kept.length - 1];
    if (previous !== undefined && previous['role'] === message['role'] && Array.isArray(previous['content'])) {
      kept[kept.length - 1] = { ...previous, content: [...previous['content'], ...remaining] };
    } else {
      kept.push({ ...message, content: remaining as JsonValue[] });
    }
  }
  return { body: { ...body, messages: kept }, removedBlocks, droppedTurns };
}
