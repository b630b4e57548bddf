/**
 * Rules on the shape of replayed thinking that the Anthropic emulator enforces with the exact
 * error texts users reported in 2026 (WIRE §8): an assistant message whose thinking is not its
 * first block; an unsigned thinking block with no text (routes that take unsigned thinking); and
 * DeepSeek's Anthropic-format endpoint, which wants the thinking of every tool-call turn of the
 * in-flight loop back. Stateless, per request.
 */

type Block = Record<string, unknown>;

/** DeepSeek models behind an Anthropic-format endpoint (`https://api.deepseek.com/anthropic`). */
export function isEmulatedDeepSeek(model: string): boolean {
  return model.trim().toLowerCase().startsWith('deepseek');
}

/** WIRE §8 (anthropics/claude-code#20717), verbatim with the real path and type. */
export function thinkingNotFirstMessage(messageIndex: number, found: string): string {
  return `messages.${messageIndex}.content.0: If an assistant message contains any thinking blocks, the first block must be \`thinking\` or \`redacted_thinking\`. Found \`${found}\`.`;
}

/** WIRE §8 (farion1231/cc-switch#3930). */
export function emptyThinkingMessage(messageIndex: number, blockIndex: number): string {
  return `messages.${messageIndex}.content.${blockIndex}.thinking: each thinking block must contain thinking`;
}

/** WIRE §8 (leookun/cursor-byok#268): DeepSeek's Anthropic-format endpoint. */
export const DEEPSEEK_THINKING_REQUIRED_MESSAGE =
  'The content[].thinking in the thinking mode must be passed back to the API.';

function isThinking(block: Block | undefined): boolean {
  return block?.['type'] === 'thinking' || block?.['type'] === 'redacted_thinking';
}

/** What the shape rules need to know about the request. */
export interface ShapeRuleOptions {
  model: string;
  thinkingEnabled: boolean;
  /** Index of the first message of the in-flight tool loop. */
  loopStart: number;
}

/** The first rule a request's assistant messages break, as the provider's message; undefined when none. */
export function thinkingShapeViolation(messages: readonly Block[], options: ShapeRuleOptions): string | undefined {
  for (const [messageIndex, message] of messages.entries()) {
    if (message['role'] !== 'assistant' || !Array.isArray(message['content'])) continue;
    const blocks = message['content'] as Block[];
    if (blocks.some(isThinking) && !isThinking(blocks[0])) {
      return thinkingNotFirstMessage(messageIndex, String(blocks[0]?.['type'] ?? 'text'));
    }
    for (const [blockIndex, block] of blocks.entries()) {
      if (block['type'] === 'thinking' && typeof block['signature'] !== 'string' && block['thinking'] === '') {
        return emptyThinkingMessage(messageIndex, blockIndex);
      }
    }
    const callsTools = blocks.some((block) => block['type'] === 'tool_use');
    if (
      isEmulatedDeepSeek(options.model) &&
      options.thinkingEnabled &&
      messageIndex >= options.loopStart &&
      callsTools &&
      !blocks.some(isThinking)
    ) {
      return DEEPSEEK_THINKING_REQUIRED_MESSAGE;
    }
  }
  return undefined;
}
