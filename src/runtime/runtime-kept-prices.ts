import type { Message } from '../core/message.js';
import { estimateMessageTokens, type MessageEstimateOptions } from '../replay/replay-token-estimate.js';

/**
 * SPEC §15 message prices kept per frozen message, for callers whose frozen messages are frozen
 * all the way down (the gateway's client histories: gateway-json-pieces.ts `deepFreeze`). Such a
 * message cannot change, so neither can its price, and a client that resends its whole history
 * on every request resends the same frozen objects: each is priced once. A price depends on the
 * message and on whether its reasoning is charged (the newest assistant turn, or stale thinking
 * charged on the route), so both are kept, each once asked for. Any other message is priced as
 * {@link estimateMessageTokens} prices it, every time.
 */
const prices = new WeakMap<Message, [uncharged: number | undefined, charged: number | undefined]>();

/** {@link estimateMessageTokens}, kept for a (deeply) frozen message. */
export function keptMessagePrice(message: Message, options: MessageEstimateOptions): number {
  if (!Object.isFrozen(message)) return estimateMessageTokens(message, options);
  let kept = prices.get(message);
  if (kept === undefined) {
    kept = [undefined, undefined];
    prices.set(message, kept);
  }
  const slot = options.newestAssistant || options.chargeStaleThinking ? 1 : 0;
  return (kept[slot] ??= estimateMessageTokens(message, options));
}
