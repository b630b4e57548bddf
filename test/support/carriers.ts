/**
 * Reasoning carriers as tests compare them: the signed Anthropic blocks (`thinking`,
 * `redacted_thinking`) a stored session holds and a request body carries, per assistant turn
 * (SPEC §9, WIRE §2).
 */

/** One content block (any wire). */
export type Block = Record<string, unknown>;

/** A shown or stored message that may hold Anthropic blocks. */
export interface MessageWithBlocks {
  role: string;
  anthropic_content_blocks?: Block[];
}

/** `thinking` or `redacted_thinking`. */
export function isThinkingBlock(block: Block): boolean {
  return String(block['type']).endsWith('thinking');
}

/** Stored thinking / redacted_thinking blocks of every assistant turn, in order. */
export function storedThinkingBlocks(session: { messages: MessageWithBlocks[] }): Block[][] {
  return session.messages
    .filter((message) => message.role === 'assistant')
    .map((message) => (message.anthropic_content_blocks ?? []).filter(isThinkingBlock));
}

/** Thinking / redacted_thinking blocks of every assistant message in an Anthropic request body, in order. */
export function sentThinkingBlocks(body: unknown): Block[][] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []).filter(isThinkingBlock));
}

/** The signature of a `thinking` block, the data of a `redacted_thinking` one. */
export function signatureOf(block: Block): string {
  return String(block['type'] === 'thinking' ? block['signature'] : block['data']);
}

/** The exact JSON text a signed block has in the stored record; must occur in the raw request bytes. */
export function carrierText(block: Block): string {
  return block['type'] === 'thinking'
    ? `"signature":${JSON.stringify(block['signature'])}`
    : `"data":${JSON.stringify(block['data'])}`;
}

/** Stored blocks as the wire carries them: Hermes's private `_` keys (a block's binding context) never travel. */
export function asSent(turns: Block[][]): Block[][] {
  return turns.map((blocks) =>
    blocks.map((block) => Object.fromEntries(Object.entries(block).filter(([key]) => !key.startsWith('_')))),
  );
}
