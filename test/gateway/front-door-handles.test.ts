import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import {
  openClientHistory,
  readableHistory,
  type ClientHistory,
  type EchoedTurn,
} from '../../src/gateway/gateway-front-door-handles.js';
import { deepFreeze } from '../../src/gateway/gateway-json-pieces.js';
import {
  openHandle,
  restoreCarriers,
  sealMessage,
  sealedCarriersOf,
} from '../../src/gateway/gateway-handle-carriers.js';
import { HandleKeyring, rotateHandleKey } from '../../src/gateway/gateway-handle-keys.js';
import { sealHandle } from '../../src/gateway/gateway-handle-seal.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';

/**
 * Sealed reasoning handles (SPEC §25.6): AES-256-GCM envelopes around a message's carriers,
 * bound to their field and key id, keys kept in the store (rotated, shared by a fleet). Every
 * handle that does not open is a reason, never a throw.
 */

const ORIGIN = {
  api: 'anthropic_messages' as const,
  provider: 'anthropic',
  host: 'api.anthropic.com',
  model: 'claude-opus-4-8',
};

/** Stored assistant messages of each carrier family, as the decoders build them (SPEC §2.1). */
const STORED: Record<string, AssistantMessage> = {
  deepseek: {
    role: 'assistant',
    content: null,
    reasoning_content: 'plan: read it',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
    origin: { api: 'chat_completions', provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4-flash' },
  },
  anthropic: {
    role: 'assistant',
    content: 'done',
    reasoning: 'why',
    reasoning_content: 'why',
    reasoning_details: [{ type: 'thinking', thinking: 'why', signature: 'EqQBsig==' }],
    anthropic_content_blocks: [
      { type: 'thinking', thinking: 'why', signature: 'EqQBsig==' },
      { type: 'redacted_thinking', data: 'EmwKredacted' },
      { type: 'text', text: 'done' },
    ],
    finish_reason: 'end_turn',
    origin: ORIGIN,
    _thinking_signature_invalidated: false,
  },
  gemini: {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'g1',
        type: 'function',
        function: { name: 'read_file', arguments: '{}' },
        extra_content: { google: { thought_signature: 'c2ln' } },
      },
    ],
    gemini_content_parts: [{ functionCall: { name: 'read_file', args: {} }, thoughtSignature: 'c2ln' }],
    gemini_issuer: 'ai-studio',
    origin: {
      api: 'gemini',
      provider: 'google',
      host: 'generativelanguage.googleapis.com',
      model: 'gemini-3-pro-preview',
    },
  },
  responses: {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_9',
        call_id: 'call_9',
        response_item_id: 'fc_1',
        type: 'function',
        function: { name: 'x', arguments: '{}' },
      },
    ],
    codex_reasoning_items: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAblob' }],
    origin: { api: 'codex_responses', provider: 'openai', host: 'api.openai.com', model: 'gpt-5.4' },
  },
};

/** What a client echoes of a stored message: the visible turn only. */
function echoOf(message: AssistantMessage): AssistantMessage {
  const echo: AssistantMessage = { role: 'assistant', content: message.content };
  if (message.tool_calls) {
    echo.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  return echo;
}

describe('sealed handles', () => {
  it.each(Object.entries(STORED))(
    'a %s message comes back exactly as stored from its echo and its handle',
    async (_name, stored) => {
      const keyring = new HandleKeyring(createMemorySessionStore());
      const handle = (await sealMessage(stored, 'messages.thinking.signature', keyring)) as string;
      expect(handle).toMatch(/^hermes\.1\./);
      // Encrypted, not merely encoded: no plaintext key survives in the sealed bytes (a short
      // string like the reasoning text itself can occur in random base64url by chance).
      const sealed = Buffer.from(handle.split('.').at(-1) ?? '', 'base64url');
      expect(sealed.length).toBeGreaterThan(16);
      expect(sealed.includes('"reasoning')).toBe(false);
      const opened = await openHandle(handle, 'messages.thinking.signature', keyring);
      expect(opened.ok).toBe(true);
      if (!opened.ok) return;
      const restored = restoreCarriers(echoOf(stored), opened.carriers);
      expect(restored).toEqual({ message: stored });
    },
  );

  it('seals nothing for a message without carriers', () => {
    expect(sealedCarriersOf({ role: 'assistant', content: 'hi', origin: ORIGIN })).toBeNull();
  });

  it('drops, with a reason and never a throw, a handle that is tampered, truncated, of another key, moved, malformed, empty or foreign', async () => {
    const store = createMemorySessionStore();
    const keyring = new HandleKeyring(store);
    const handle = (await sealMessage(STORED['anthropic']!, 'messages.thinking.signature', keyring)) as string;
    const otherGateway = new HandleKeyring(createMemorySessionStore());
    const foreignHandle = (await sealMessage(
      STORED['anthropic']!,
      'messages.thinking.signature',
      otherGateway,
    )) as string;
    const middle = Math.floor(handle.length / 2);
    const flipped = handle.slice(0, middle) + (handle[middle] === 'A' ? 'B' : 'A') + handle.slice(middle + 1);
    const relabelled = handle.replace(/^hermes\.1\.[^.]+\./, `hermes.1.${foreignHandle.split('.')[2]}.`);
    const cases: [string, unknown, string, RegExp][] = [
      ['tampered', flipped, 'messages.thinking.signature', /does not authenticate/],
      ['truncated', handle.slice(0, -12), 'messages.thinking.signature', /does not authenticate/],
      ['cut to its head', handle.slice(0, 20), 'messages.thinking.signature', /malformed/],
      ['sealed by another gateway', foreignHandle, 'messages.thinking.signature', /a key this store does not hold/],
      ['relabelled with another key id', relabelled, 'messages.thinking.signature', /a key this store does not hold/],
      ['moved to another field', handle, 'responses.reasoning.encrypted_content', /does not authenticate/],
      ['empty', '', 'messages.thinking.signature', /empty or null/],
      ['null', null, 'messages.thinking.signature', /empty or null/],
      ['missing', undefined, 'messages.thinking.signature', /empty or null/],
      ['a provider signature', 'EqQBCgIYAhIM', 'messages.thinking.signature', /not a gateway handle/],
    ];
    for (const [what, value, purpose, reason] of cases) {
      const opened = await openHandle(value, purpose as 'messages.thinking.signature', keyring);
      expect({ what, ok: opened.ok }).toEqual({ what, ok: false });
      if (!opened.ok) expect({ what, reason: opened.reason }).toEqual({ what, reason: expect.stringMatching(reason) });
    }
  });

  it('a handle moved to a turn whose tool calls differ does not restore', async () => {
    const keyring = new HandleKeyring(createMemorySessionStore());
    const handle = await sealMessage(STORED['deepseek']!, 'messages.thinking.signature', keyring);
    const opened = await openHandle(handle, 'messages.thinking.signature', keyring);
    if (!opened.ok) throw new Error(opened.reason);
    const other = {
      ...echoOf(STORED['deepseek']!),
      tool_calls: [{ id: 'call_2', type: 'function' as const, function: { name: 'x', arguments: '{}' } }],
    };
    expect(restoreCarriers(other, opened.carriers)).toEqual({
      mismatch: 'belongs to another turn (its tool calls differ)',
    });
  });

  it('rotation: the newest key seals at once, every stored key opens, a retired one opens nothing (SPEC §25.6)', async () => {
    const store = createMemorySessionStore();
    const keyring = new HandleKeyring(store);
    const old = (await sealMessage(STORED['deepseek']!, 'messages.thinking.signature', keyring)) as string;
    const rotation = await rotateHandleKey(store, { retireOld: false });
    expect(rotation.total).toBe(2);
    const fresh = (await sealMessage(STORED['deepseek']!, 'messages.thinking.signature', keyring)) as string;
    expect(fresh.split('.')[2]).toBe(rotation.created.id);
    expect((await openHandle(old, 'messages.thinking.signature', keyring)).ok).toBe(true);
    // Another gateway of the fleet, sharing the store, opens the new key's handle at once.
    expect((await openHandle(fresh, 'messages.thinking.signature', new HandleKeyring(store))).ok).toBe(true);
    await rotateHandleKey(store, { retireOld: true });
    // The running gateway reads the keys before it opens a request's handles: the retired key and
    // what it opened with it are gone.
    await keyring.refresh();
    expect(await openHandle(old, 'messages.thinking.signature', keyring)).toEqual({
      ok: false,
      reason: 'sealed with a key this store does not hold (another gateway, or a retired key)',
    });
  });

  it('each handle is decrypted once per gateway: a second echo of it is answered from memory', async () => {
    const store = createMemorySessionStore();
    const keyring = new HandleKeyring(store);
    const handle = (await sealMessage(STORED['gemini']!, 'messages.thinking.signature', keyring)) as string;
    const first = await openHandle(handle, 'messages.thinking.signature', keyring);
    const again = await openHandle(handle, 'messages.thinking.signature', keyring);
    expect(again).toBe(first);
    // Remembered per field: the same bytes in another field still do not open.
    expect((await openHandle(handle, 'responses.reasoning.encrypted_content', keyring)).ok).toBe(false);
  });

  it('a handle this gateway sealed opens from memory, to what decrypting it gives', async () => {
    const store = createMemorySessionStore();
    const keyring = new HandleKeyring(store);
    const handle = (await sealMessage(STORED['gemini']!, 'gemini.part.thoughtSignature', keyring)) as string;
    const remembered = keyring.recall(handle, 'gemini.part.thoughtSignature');
    expect(remembered).toMatchObject({ ok: true, keyId: handle.split('.')[2] });
    expect(await openHandle(handle, 'gemini.part.thoughtSignature', keyring)).toBe(remembered);
    // Another gateway sharing the store decrypts it to the same carriers.
    expect(await openHandle(handle, 'gemini.part.thoughtSignature', new HandleKeyring(store))).toEqual(remembered);
    // Only for the field it was sealed for.
    expect(keyring.recall(handle, 'messages.thinking.signature')).toBeUndefined();
  });

  it('keys are read once per request: before each seal and before a history is opened, never per handle', async () => {
    const store = createMemorySessionStore();
    const reads: number[] = [];
    const counting = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'listHandleKeys') return () => (reads.push(1), target.listHandleKeys());
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const keyring = new HandleKeyring(counting);
    await keyring.sealingKey();
    expect(reads).toHaveLength(1);
    const forged = sealHandle('{}', 'messages.thinking.signature', { id: 'unknown1', key: Buffer.alloc(32) });
    for (let attempt = 0; attempt < 5; attempt += 1) await openHandle(forged, 'messages.thinking.signature', keyring);
    expect(reads).toHaveLength(1);
    await keyring.sealingKey();
    expect(reads).toHaveLength(2);
  });
});

describe('opening a client history', () => {
  const route = {
    api: 'chat_completions' as const,
    origin: { api: 'chat_completions' as const, provider: 'deepseek', host: 'api.deepseek.com', model: 'm' },
  };

  it('restores opened turns, keeps the readable text of dropped ones, and says so per turn', async () => {
    const keyring = new HandleKeyring(createMemorySessionStore());
    const handle = await sealMessage(STORED['deepseek']!, 'messages.thinking.signature', keyring);
    const history: ClientHistory = {
      messages: [
        { role: 'user', content: 'q' },
        echoOf(STORED['deepseek']!),
        { role: 'tool', tool_call_id: 'call_1', content: 'a' },
        { role: 'assistant', content: 'answer' },
      ],
      echoes: new Map([
        [1, { reasoning: [{ field: 'content[0].signature', value: handle, text: 'plan: read it' }] }],
        [3, { reasoning: [{ field: 'content[0].signature', value: 'hermes.1.k.AAAA', text: 'shown text' }] }],
      ]),
    };
    const decisions = await openClientHistory(history, 'messages.thinking.signature', keyring, route);
    expect(history.messages[1]).toEqual(STORED['deepseek']);
    expect(history.messages[3]).toEqual({ role: 'assistant', content: 'answer', reasoning: 'shown text' });
    expect(decisions).toEqual([
      {
        messageIndex: 1,
        field: 'handle content[0].signature',
        action: 'kept',
        reason: expect.stringMatching(/^opened \(key /),
        bytes: handle!.length,
      },
      {
        messageIndex: 3,
        field: 'handle content[0].signature',
        action: 'dropped',
        reason: 'malformed (truncated, or not base64url)',
        bytes: 15,
      },
    ]);
  });

  it('passes a provider blob through on its own wire API only, stamped with the route', async () => {
    const keyring = new HandleKeyring(createMemorySessionStore());
    const blocks = [
      { type: 'thinking', thinking: 'why', signature: 'EqQBreal' },
      { type: 'text', text: 'done' },
    ];
    const make = (): ClientHistory => ({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'done' },
      ],
      echoes: new Map([
        [
          1,
          {
            reasoning: [{ field: 'content[0].signature', value: 'EqQBreal', text: 'why' }],
            native: { api: 'anthropic_messages', key: 'anthropic_content_blocks', entries: blocks },
          },
        ],
      ]),
    });
    const native = make();
    const kept = await openClientHistory(native, 'messages.thinking.signature', keyring, {
      api: 'anthropic_messages',
      origin: ORIGIN,
    });
    expect(native.messages[1]).toEqual({
      role: 'assistant',
      content: 'done',
      anthropic_content_blocks: blocks,
      reasoning: 'why',
      origin: ORIGIN,
    });
    expect(kept[0]).toMatchObject({ action: 'kept', reason: expect.stringContaining('passed through') });
    const elsewhere = make();
    const dropped = await openClientHistory(elsewhere, 'messages.thinking.signature', keyring, route);
    expect(elsewhere.messages[1]).toEqual({ role: 'assistant', content: 'done', reasoning: 'why' });
    expect(dropped[0]).toMatchObject({
      action: 'dropped',
      reason: expect.stringContaining('goes only to its own wire API'),
    });
  });
});

describe('the readable history a token estimate prices', () => {
  const echo = (text: string): EchoedTurn => ({ reasoning: [{ field: 'content[0].signature', value: 'x', text }] });

  it('shows each echoed turn’s readable reasoning, handles unopened', () => {
    const history: ClientHistory = {
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
      echoes: new Map([
        [1, echo('thought')],
        [2, echo('')],
      ]),
    };
    expect(readableHistory(history)).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', reasoning: 'thought' },
      { role: 'assistant', content: 'b' },
    ]);
  });

  it('gives a repeated (frozen) turn the same frozen copy on every request, a changed echo a new one', () => {
    const message = deepFreeze({ role: 'assistant', content: 'a' } as Message);
    const first = deepFreeze(echo('thought'));
    const request = (turn: EchoedTurn): ClientHistory => ({ messages: [message], echoes: new Map([[0, turn]]) });
    const [once] = readableHistory(request(first));
    const [twice] = readableHistory(request(first));
    expect(twice).toBe(once);
    expect(Object.isFrozen(once)).toBe(true);
    const [other] = readableHistory(request(deepFreeze(echo('another thought'))));
    expect(other).not.toBe(once);
    expect(other).toEqual({ role: 'assistant', content: 'a', reasoning: 'another thought' });
    // Objects a request made (not frozen) get a copy of their own each time.
    const open = { messages: [{ role: 'assistant', content: 'a' } as Message], echoes: new Map([[0, echo('t')]]) };
    expect(readableHistory(open)[0]).not.toBe(readableHistory(open)[0]);
  });
});
