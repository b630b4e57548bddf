import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { estimateMessageTokens, type MessageEstimateOptions } from '../replay/replay-token-estimate.js';

/**
 * How a request's parts are priced (SPEC §15), anew or kept. Kept prices are for callers whose
 * frozen messages and tool definitions are frozen all the way down (the gateway's client
 * histories: gateway-json-pieces.ts `deepFreeze`, gateway-tool-definitions.ts). Such an object
 * cannot change, so neither can its price, and a client that resends its whole history and its
 * tools on every request resends the same frozen objects: each is priced once. Anything not
 * frozen is priced anew, every time.
 */
export interface Prices {
  /** One message's price: what {@link estimateMessageTokens} gives. */
  message(message: Message, options: MessageEstimateOptions): number;
  /** The tool definitions' price: their JSON text priced as one system message. */
  tools(tools: readonly ToolDefinition[]): number;
}

/** The tools as one system message of their JSON text (SPEC §15). */
function toolsTokens(tools: readonly ToolDefinition[]): number {
  if (tools.length === 0) return 0;
  const message: Message = { role: 'system', content: JSON.stringify(tools) };
  return estimateMessageTokens(message, { chargeStaleThinking: false, newestAssistant: false });
}

/** Every part priced anew. */
export const PRICED_ANEW: Prices = { message: estimateMessageTokens, tools: toolsTokens };

/**
 * A frozen message's prices. A price depends on the message and on whether its reasoning is
 * charged (the newest assistant turn, or stale thinking charged on the route): both are kept,
 * each once asked for.
 */
const messagePrices = new WeakMap<Message, [uncharged: number | undefined, charged: number | undefined]>();

function keptMessagePrice(message: Message, options: MessageEstimateOptions): number {
  if (!Object.isFrozen(message)) return estimateMessageTokens(message, options);
  let kept = messagePrices.get(message);
  if (kept === undefined) {
    kept = [undefined, undefined];
    messagePrices.set(message, kept);
  }
  const slot = options.newestAssistant || options.chargeStaleThinking ? 1 : 0;
  return (kept[slot] ??= estimateMessageTokens(message, options));
}

/** The last price of a list of frozen tools, by its first tool: the same tools in the same order hit. */
const toolPrices = new WeakMap<ToolDefinition, { tools: readonly ToolDefinition[]; tokens: number }>();

function keptToolsPrice(tools: readonly ToolDefinition[]): number {
  const first = tools[0];
  if (first === undefined || !tools.every((tool) => Object.isFrozen(tool))) return toolsTokens(tools);
  const kept = toolPrices.get(first);
  if (kept?.tools.length === tools.length && kept.tools.every((tool, index) => tool === tools[index])) {
    return kept.tokens;
  }
  const tokens = toolsTokens(tools);
  toolPrices.set(first, { tools: [...tools], tokens });
  return tokens;
}

/** Frozen parts priced once (see {@link Prices}). */
export const KEPT_PRICES: Prices = { message: keptMessagePrice, tools: keptToolsPrice };
