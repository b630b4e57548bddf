/**
 * Kept prices (runtime-kept-prices.ts): a frozen message, a list of frozen tools, is priced once,
 * and every price is the one pricing anew gives (SPEC §15), over seeded random messages, for the
 * newest assistant turn and older ones, with stale thinking charged or not.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { estimateMessageTokens } from '../../src/replay/replay-token-estimate.js';
import { KEPT_PRICES, PRICED_ANEW } from '../../src/runtime/runtime-kept-prices.js';
import type { ToolDefinition } from '../../src/core/tool-definition.js';

const keptMessagePrice = KEPT_PRICES.message;
import { estimateClientTurnTokens } from '../../src/runtime/runtime-client-turn.js';
import { deepFreeze } from '../../src/gateway/gateway-json-pieces.js';
import { seededRandom } from '../support/random.js';

const TEXTS = ['plain words', 'naïve café', '日本語のテキスト', 'emoji 🙂 and more', '', '   '];

function randomMessage(random: () => number): Message {
  const text = () => `${TEXTS[Math.floor(random() * TEXTS.length)]} ${Math.floor(random() * 1000)}`;
  const roll = random();
  if (roll < 0.3) return { role: 'user', content: text() };
  if (roll < 0.4) return { role: 'user', content: [{ type: 'text', text: text() }, { type: 'image_url' }] } as Message;
  if (roll < 0.5) return { role: 'tool', tool_call_id: 'call_1', content: text() };
  const message: Message = { role: 'assistant', content: random() < 0.2 ? null : text() };
  if (random() < 0.5) message.reasoning_content = text();
  if (random() < 0.3) message.reasoning = text();
  if (random() < 0.3) message.reasoning_details = [{ type: 'reasoning.text', text: text(), signature: 'c2ln' }];
  if (random() < 0.3)
    message.tool_calls = [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: text() } }];
  return message;
}

const MODES = [
  { chargeStaleThinking: false, newestAssistant: false },
  { chargeStaleThinking: false, newestAssistant: true },
  { chargeStaleThinking: true, newestAssistant: false },
  { chargeStaleThinking: true, newestAssistant: true },
];

describe('kept message prices', () => {
  it.each([1, 2, 3])('equal estimateMessageTokens for frozen and unfrozen messages (seed %i)', (seed) => {
    const random = seededRandom(seed);
    for (let count = 0; count < 300; count += 1) {
      const message = randomMessage(random);
      const frozen = deepFreeze(structuredClone(message));
      for (const mode of [...MODES, ...MODES]) {
        expect(keptMessagePrice(message, mode)).toBe(estimateMessageTokens(message, mode));
        expect(keptMessagePrice(frozen, mode)).toBe(estimateMessageTokens(frozen, mode));
      }
    }
  });

  it('prices an unfrozen message anew each time (it may have changed), a frozen one once', () => {
    const mode = { chargeStaleThinking: false, newestAssistant: true };
    const open: Message = { role: 'assistant', content: 'short', reasoning_content: 'brief' };
    const before = keptMessagePrice(open, mode);
    open.reasoning_content = 'a much longer thought than before, priced again';
    expect(keptMessagePrice(open, mode)).toBeGreaterThan(before);

    const frozen = deepFreeze({ role: 'assistant', content: 'short', reasoning_content: 'brief' } as Message);
    const reads = { count: 0 };
    const counted = new Proxy(frozen, {
      get(target, key, receiver) {
        reads.count += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    // A proxy of a frozen object reads as frozen: the first price reads it, the second does not.
    keptMessagePrice(counted, mode);
    const afterFirst = reads.count;
    expect(afterFirst).toBeGreaterThan(0);
    expect(keptMessagePrice(counted, mode)).toBe(estimateMessageTokens(frozen, mode));
    expect(reads.count).toBe(afterFirst);
  });

  it('give a client turn the same estimate as pricing every message', () => {
    const random = seededRandom(7);
    const history = deepFreeze(Array.from({ length: 200 }, () => randomMessage(random)));
    const route = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' } as const;
    const tools = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }];
    const settings = { reasoning: { enabled: true } };
    const plain = estimateClientTurnTokens(history, tools, route, settings);
    expect(estimateClientTurnTokens(history, tools, route, settings, KEPT_PRICES)).toBe(plain);
    expect(estimateClientTurnTokens(history, tools, route, settings, KEPT_PRICES)).toBe(plain);
  });

  it('price a list of frozen tools once, and any other list (another order, one more, one changed) anew', () => {
    const tool = (name: string, description: string): ToolDefinition =>
      deepFreeze({ name, description, parameters: { type: 'object', properties: { path: { type: 'string' } } } });
    const read = tool('read_file', 'Read a file');
    const edit = tool('edit_file', 'Edit a file: 日本語 and naïve text too');
    const lists: ToolDefinition[][] = [
      [read, edit],
      [read, edit],
      [edit, read],
      [read],
      [read, edit, tool('bash', 'Run a command')],
      [read, tool('edit_file', 'Edit a file, differently')],
      [read, { name: 'open', description: 'not frozen', parameters: {} }],
      [],
    ];
    for (const list of lists) expect(KEPT_PRICES.tools(list)).toBe(PRICED_ANEW.tools(list));
    expect(PRICED_ANEW.tools([])).toBe(0);

    const reads = { count: 0 };
    const counted = new Proxy(read, {
      get(target, key, receiver) {
        reads.count += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    KEPT_PRICES.tools([counted, edit]);
    const afterFirst = reads.count;
    expect(afterFirst).toBeGreaterThan(0);
    KEPT_PRICES.tools([counted, edit]);
    expect(reads.count).toBe(afterFirst);
  });
});
