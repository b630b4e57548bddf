/**
 * One-retry repairs of an Anthropic Messages body that a provider refused for the shape of its
 * thinking blocks (WIRE §8, SPEC §26.2), each answering one error text. They work on the wire body
 * (a copy: the rejected body is left as it was) and report how many blocks they changed; a repair
 * that changes nothing means the retry would fail the same way, so the error surfaces instead.
 * Pure.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';

/** A repaired body and how many blocks the repair touched. */
export interface BodyRepair {
  body: JsonObject;
  changed: number;
}

function isThinking(block: JsonValue): boolean {
  return isJsonObject(block) && (block['type'] === 'thinking' || block['type'] === 'redacted_thinking');
}

/** Applies `repair` to the content of every assistant message; messages are copied only when changed. */
function repairAssistants(
  body: JsonObject,
  repair: (content: JsonValue[]) => { content: JsonValue[]; changed: number },
): BodyRepair {
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  let changed = 0;
  const repaired = messages.map((message) => {
    if (!isJsonObject(message) || message['role'] !== 'assistant' || !Array.isArray(message['content'])) return message;
    const result = repair(message['content']);
    if (result.changed === 0) return message;
    changed += result.changed;
    return { ...message, content: result.content };
  });
  return { body: changed === 0 ? body : { ...body, messages: repaired }, changed };
}

/**
 * "messages.N.content.0.thinking: each thinking block must contain thinking" (WIRE §8): thinking
 * blocks whose text is empty are left out; a message left empty gets the elided-thinking text.
 */
export function dropEmptyThinking(body: JsonObject, placeholder: string): BodyRepair {
  return repairAssistants(body, (content) => {
    const kept = content.filter(
      (block) => !(isJsonObject(block) && block['type'] === 'thinking' && block['thinking'] === ''),
    );
    const changed = content.length - kept.length;
    if (changed > 0 && kept.length === 0) kept.push({ type: 'text', text: placeholder });
    return { content: kept, changed };
  });
}

/**
 * "If an assistant message contains any thinking blocks, the first block must be `thinking` or
 * `redacted_thinking`. Found `text`." (WIRE §8): each such message's thinking blocks move to the
 * front, in their order; the other blocks keep theirs.
 */
export function thinkingFirst(body: JsonObject): BodyRepair {
  return repairAssistants(body, (content) => {
    if (!content.some(isThinking) || isThinking(content[0] ?? null)) return { content, changed: 0 };
    return { content: [...content.filter(isThinking), ...content.filter((block) => !isThinking(block))], changed: 1 };
  });
}

/**
 * DeepSeek's Anthropic-format "The content[].thinking in the thinking mode must be passed back to
 * the API." (WIRE §8): every assistant tool-call turn without a thinking block gets the stand-in,
 * an unsigned thinking block holding `pad` (the must-echo pad of SPEC §4), in front.
 */
export function padMissingThinking(body: JsonObject, pad: string): BodyRepair {
  return repairAssistants(body, (content) => {
    const calls = content.some((block) => isJsonObject(block) && block['type'] === 'tool_use');
    if (!calls || content.some(isThinking)) return { content, changed: 0 };
    return { content: [{ type: 'thinking', thinking: pad }, ...content], changed: 1 };
  });
}

/** The block an Anthropic 400 names by its path (`messages.N.content.M`), as `[message, block]`; null when it names none. */
export function namedBlockPosition(errorText: string): [number, number] | null {
  const match = /messages\.(\d+)\.content\.(\d+)/.exec(errorText);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/**
 * The signed blocks a "bound to a different conversation" or "cannot be modified" 400 condemns:
 * the block its path names (`messages.N.content.M`) and every signed block after it in the body —
 * Anthropic: "that block and every later thinking block are invalid"; earlier blocks stay valid.
 * Without a path, every signed block. Returns the positions `[message, block]`.
 */
export function condemnedPositions(body: JsonObject, errorText: string): [number, number][] {
  const from: readonly [number, number] = namedBlockPosition(errorText) ?? [0, 0];
  const positions: [number, number][] = [];
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  messages.forEach((message, messageIndex) => {
    if (!isJsonObject(message) || !Array.isArray(message['content'])) return;
    message['content'].forEach((block, blockIndex) => {
      if (!isThinking(block)) return;
      const after = messageIndex > from[0] || (messageIndex === from[0] && blockIndex >= from[1]);
      if (after) positions.push([messageIndex, blockIndex]);
    });
  });
  return positions;
}
