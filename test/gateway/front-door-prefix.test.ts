import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import { FrontDoorSessionCopies, type SessionCopy } from '../../src/gateway/gateway-front-door-copies.js';
import type { ClientHistory, EchoedTurn } from '../../src/gateway/gateway-front-door-handles.js';
import { sameJson, translateClientHistory } from '../../src/gateway/gateway-front-door-prefix.js';
import { storedTurnsOf } from '../../src/gateway/gateway-front-door-restore.js';
import { sealMessage } from '../../src/gateway/gateway-handle-carriers.js';
import { HandleKeyring, rotateHandleKey } from '../../src/gateway/gateway-handle-keys.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { seededRandom } from '../support/random.js';

/**
 * SPEC §26.7: a front-door request translates only what the last request of its session did not
 * carry in the same bytes (gateway-front-door-prefix.ts). Over seeded random conversations —
 * appended turns, handles echoed whole, blanked or dropped, earlier turns edited, rewinds, turns
 * the session learns later, a route change — the translation that reuses the last one equals a
 * full translation of the same request: the same messages, the same decisions in the same order.
 */

const PURPOSE = 'messages.thinking.signature' as const;
const ORIGINS: OriginStamp[] = [
  { api: 'chat_completions', provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4-flash' },
  { api: 'chat_completions', provider: 'openrouter', host: 'openrouter.ai', model: 'anthropic/claude-opus' },
];

/** One request as a door parses it: fresh objects every time (the client resends everything). */
interface ClientRequest {
  messages: Message[];
  echoes: [number, EchoedTurn][];
}

const parsed = (request: ClientRequest): ClientHistory =>
  structuredClone({ messages: request.messages, echoes: new Map(request.echoes) });

/** A stored answer with carriers, as the session keeps it. */
function storedAnswer(turn: number, random: () => number): AssistantMessage {
  const answer: AssistantMessage = {
    role: 'assistant',
    content: `answer ${turn}`,
    reasoning_content: `thinking ${turn}`,
    origin: ORIGINS[0] as OriginStamp,
  };
  if (random() < 0.4) {
    answer.content = null;
    answer.tool_calls = [
      { id: `call_${turn}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${turn}"}` } },
    ];
  }
  return answer;
}

/** What the client holds of a stored answer, and how it echoes it. */
async function clientCopy(
  answer: AssistantMessage,
  keyring: HandleKeyring,
  random: () => number,
): Promise<{ message: Message; echo: EchoedTurn | undefined }> {
  const message: AssistantMessage = { role: 'assistant', content: answer.content };
  if (answer.tool_calls) message.tool_calls = answer.tool_calls.map((call) => structuredClone(call));
  const roll = random();
  if (roll < 0.15) return { message, echo: undefined };
  const value = roll < 0.3 ? '' : await sealMessage(answer, PURPOSE, keyring);
  return { message, echo: { reasoning: [{ field: 'content[0].signature', value, text: roll < 0.5 ? 'shown' : '' }] } };
}

interface Conversation {
  store: SessionStore;
  sessionId: string;
  keyring: HandleKeyring;
  copies: FrontDoorSessionCopies;
  request: ClientRequest;
}

/** The mirror's write: `messages` appended to the session, the copy following it. */
async function mirror(conversation: Conversation, messages: Message[]): Promise<void> {
  const { store, sessionId, copies } = conversation;
  const copy = await copies.read(store, sessionId);
  const version = copy?.version ?? 0;
  const written = await store.writeTurn(sessionId, { expectedVersion: version, messages });
  copies.appended(sessionId, version, written.version, messages);
}

/** Translates `history` as the gateway does for a request on the session `copy` holds. */
function translate(history: ClientHistory, copy: SessionCopy, keyring: HandleKeyring, origin: OriginStamp) {
  const route = { api: origin.api, origin };
  return translateClientHistory({ history, purpose: PURPOSE, keyring, route, copy, source: { turns: copy.turns } });
}

/** One request: the translation reusing the last one, and a full translation beside it. */
async function translateBoth(conversation: Conversation, origin: OriginStamp) {
  const { store, sessionId, keyring, copies } = conversation;
  const copy = (await copies.read(store, sessionId)) as SessionCopy;
  const incremental = parsed(conversation.request);
  const reusing = await translate(incremental, copy, keyring, origin);
  if (reusing.prefix) copies.translated(sessionId, reusing.prefix);
  const stored = await store.listMessages(sessionId, { includeArchived: true });
  const fresh: SessionCopy = { ...copy, version: 0, stored, turns: storedTurnsOf(stored), translated: undefined };
  const full = parsed(conversation.request);
  const whole = await translate(full, fresh, keyring, origin);
  return { incremental, reusing, full, whole };
}

describe('front-door translation of an unchanged prefix', () => {
  it.each([1, 2, 3, 4, 5, 6])('equals a full translation over a random conversation (seed %i)', async (seed) => {
    const random = seededRandom(seed);
    const store = createMemorySessionStore();
    const session = await store.createSession({ provider: 'deepseek', model: 'deepseek-v4-flash' });
    const conversation: Conversation = {
      store,
      sessionId: session.id,
      keyring: new HandleKeyring(store),
      copies: new FrontDoorSessionCopies(),
      request: { messages: [{ role: 'system', content: 'be brief' }], echoes: [] },
    };
    let reusedTotal = 0;
    let learnNext: number | undefined;
    for (let turn = 1; turn <= 40; turn += 1) {
      const { request } = conversation;
      const question: Message = { role: 'user', content: `question ${turn}` };
      request.messages.push(question);
      const origin = (turn > 30 && random() < 0.5 ? ORIGINS[1] : ORIGINS[0]) as OriginStamp;
      const { incremental, reusing, full, whole } = await translateBoth(conversation, origin);
      expect(incremental.messages).toEqual(full.messages);
      expect([...reusing.opened, ...reusing.restored]).toEqual([...whole.opened, ...whole.restored]);
      reusedTotal += reusing.reused;
      if (learnNext !== undefined) {
        const edited = request.messages[learnNext] as AssistantMessage | undefined;
        const learned = storedAnswer(turn + 1000, random);
        learnNext = undefined;
        if (edited?.role === 'assistant') {
          const calls = (edited.tool_calls ?? []).map((call) => structuredClone(call));
          await mirror(conversation, [{ ...learned, content: edited.content, tool_calls: calls }]);
        }
      }

      // The answer, mirrored, and what the client holds of it.
      const answer = storedAnswer(turn, random);
      await mirror(conversation, random() < 0.9 ? [question, answer] : [answer]);
      const held = await clientCopy(answer, conversation.keyring, random);
      request.messages.push(held.message);
      if (held.echo) request.echoes.push([request.messages.length - 1, held.echo]);
      if (answer.tool_calls) {
        const call = answer.tool_calls[0]?.id as string;
        request.messages.push({ role: 'tool', tool_call_id: call, content: `result ${turn}` });
      }

      const roll = random();
      const assistants = request.messages.flatMap((message, index) => (message.role === 'assistant' ? [index] : []));
      const edited = assistants[Math.floor(random() * assistants.length)];
      if (roll < 0.1 && edited !== undefined) {
        // The client edits an earlier answer (it matches no stored turn now)...
        const message = request.messages[edited] as AssistantMessage;
        request.messages[edited] = { ...message, content: `${String(message.content)} (edited)` };
        // ...and sometimes the session learns that edited turn a request later (it matches then).
        if (random() < 0.5) learnNext = edited;
      } else if (roll < 0.15) {
        // The client drops every handle of one turn, or rewinds its last exchange.
        if (random() < 0.5) request.echoes.splice(Math.floor(random() * request.echoes.length), 1);
        else {
          const cut = Math.max(1, request.messages.length - 2);
          request.messages.length = cut;
          request.echoes = request.echoes.filter(([index]) => index < cut);
        }
      }
    }
    // The prefix was reused for most requests (the point of it), yet never changed the outcome.
    expect(reusedTotal).toBeGreaterThan(200);
  });

  it('translates anew after the session changed underneath (another process, /undo)', async () => {
    const store = createMemorySessionStore();
    const session = await store.createSession({ provider: 'deepseek', model: 'deepseek-v4-flash' });
    const copies = new FrontDoorSessionCopies();
    const first = await copies.read(store, session.id);
    copies.translated(session.id, { facts: 'x', storedTurns: 0, messages: [] });
    await store.appendMessages(session.id, [{ role: 'user', content: 'from elsewhere' }]);
    const second = await copies.read(store, session.id);
    expect(second).not.toBe(first);
    expect(second?.stored).toEqual([{ role: 'user', content: 'from elsewhere' }]);
    expect(second?.translated).toBeUndefined();
  });

  it('opens the reused handles again after a key was retired: a retired key opens nothing', async () => {
    const store = createMemorySessionStore();
    const session = await store.createSession({ provider: 'deepseek', model: 'deepseek-v4-flash' });
    const keyring = new HandleKeyring(store);
    const copies = new FrontDoorSessionCopies();
    const origin = ORIGINS[0] as OriginStamp;
    const question: Message = { role: 'user', content: 'question 1' };
    const answer: AssistantMessage = {
      role: 'assistant',
      content: 'answer 1',
      reasoning_content: 'thinking 1',
      origin,
    };
    const written = await store.writeTurn(session.id, {
      expectedVersion: session.version,
      messages: [question, answer],
    });
    const value = await sealMessage(answer, PURPOSE, keyring);
    const request = (): ClientHistory =>
      parsed({
        messages: [question, { role: 'assistant', content: 'answer 1' }, { role: 'user', content: 'question 2' }],
        echoes: [[1, { reasoning: [{ field: 'content[0].signature', value, text: '' }] }]],
      });
    const copy = async () => (await copies.read(store, session.id)) as SessionCopy;
    expect(written.version).toBeGreaterThan(session.version);
    const first = await translate(request(), await copy(), keyring, origin);
    if (first.prefix) copies.translated(session.id, first.prefix);
    const again = await translate(request(), await copy(), keyring, origin);
    expect(again.reused).toBeGreaterThan(0);
    expect(again.opened).toEqual(first.opened);

    await rotateHandleKey(store, { retireOld: true });
    const after = await translate(request(), await copy(), keyring, origin);
    expect(after.reused).toBe(0);
    expect(after.opened).not.toEqual(first.opened);
  });

  it('keeps the objects of the request it last reused, so a request repeating them compares no values', async () => {
    const store = createMemorySessionStore();
    const session = await store.createSession({ provider: 'deepseek', model: 'deepseek-v4-flash' });
    const keyring = new HandleKeyring(store);
    const copies = new FrontDoorSessionCopies();
    const origin = ORIGINS[0] as OriginStamp;
    const messages: Message[] = [
      { role: 'user', content: 'question 1' },
      { role: 'assistant', content: 'answer 1' },
      { role: 'user', content: 'question 2' },
    ];
    const copy = async () => (await copies.read(store, session.id)) as SessionCopy;
    const first = await translate(parsed({ messages, echoes: [] }), await copy(), keyring, origin);
    if (first.prefix) copies.translated(session.id, first.prefix);
    // The next request's objects are equal in value, not the same objects (parsed anew).
    const second = parsed({ messages, echoes: [] });
    const asParsed = [...second.messages];
    const reusing = await translate(second, await copy(), keyring, origin);
    expect(reusing.reused).toBe(3);
    const kept = reusing.prefix?.messages.map((message) => message.input.message);
    expect(kept).toHaveLength(3);
    kept?.forEach((message, index) => expect(message).toBe(asParsed[index]));
  });

  it('stays within its bounds', async () => {
    const store = createMemorySessionStore();
    const copies = new FrontDoorSessionCopies({ maxSessions: 3, maxMessages: 50 });
    for (let index = 0; index < 10; index += 1) {
      const session = await store.createSession({});
      await store.appendMessages(
        session.id,
        Array.from({ length: 20 }, (_, position): Message => ({ role: 'user', content: `m${position}` })),
      );
      await copies.read(store, session.id);
      expect(copies.size.sessions).toBeLessThanOrEqual(3);
      expect(copies.size.messages).toBeLessThanOrEqual(50);
    }
  });
});

describe('sameJson', () => {
  it('is equality of the serialized text', () => {
    const cases: [unknown, unknown][] = [
      [
        { a: 1, b: [1, 'x', null] },
        { a: 1, b: [1, 'x', null] },
      ],
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [{ a: 1, c: undefined }, { a: 1 }],
      [
        [1, 2],
        [1, 2, 3],
      ],
      [{ a: 'x'.repeat(1000) }, { a: `${'x'.repeat(999)}y` }],
      [{ a: [] }, { a: {} }],
      [null, {}],
      ['1', 1],
    ];
    for (const [left, right] of cases) {
      expect(sameJson(left, right), JSON.stringify([left, right])).toBe(JSON.stringify(left) === JSON.stringify(right));
    }
  });
});
