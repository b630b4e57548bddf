import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { newMessages } from '../../src/gateway/gateway-front-door-session.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import {
  messageText,
  messagesConversation,
  responsesConversation,
  responseText,
  statuses,
  useFrontDoors,
} from './front-door-helpers.js';

/**
 * Front-door sessions (docs/gateway.md "Sessions of Claude Code and Codex"): a client's own
 * session header mirrors its turns into a gateway session of that id — messages with every
 * carrier, request records with the handle decisions — while the client keeps the history; no
 * header, nothing is stored but what the store learns for every session (verdicts).
 */

const doors = useFrontDoors();

interface RequestsBody {
  data: { status: number; decisions: { messageIndex: number; field: string; action: string; reason: string }[] }[];
}

async function requestsOf(url: string, sessionId: string): Promise<RequestsBody['data']> {
  const response = await fetch(`${url}/v1/sessions/${sessionId}/requests`);
  return ((await response.json()) as RequestsBody).data;
}

describe('front-door sessions', () => {
  it('x-claude-code-session-id mirrors the conversation: every message once, carriers whole, handle decisions recorded', async () => {
    const sessionId = 'c0ffee00-1111-4222-8333-444455556666';
    const { gateway, store } = await doors.gateway(['deepseek']);
    const chat = messagesConversation(
      doors.anthropic(gateway, { 'x-claude-code-session-id': sessionId }),
      'deepseek',
      'be brief',
    );
    const [call] = await chat.turn('read the file notes.txt', { stream: true });
    await chat.turn('thanks', { stream: false });
    const stored = await store.listMessages(sessionId);
    expect(stored.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    const toolTurn = stored[2] as AssistantMessage;
    expect(toolTurn.reasoning_content).toBe((call?.content[0] as Anthropic.ThinkingBlock).thinking);
    expect(toolTurn.origin).toMatchObject({ provider: 'deepseek', model: 'deepseek-v4-flash' });
    expect(await store.getSession(sessionId)).toMatchObject({ title: 'read the file notes.txt', provider: 'deepseek' });
    const records = await requestsOf(gateway.url, sessionId);
    expect(records.map((record) => record.status)).toEqual([200, 200, 200]);
    const handles = records[2]?.decisions.filter((decision) => decision.field.startsWith('handle ')) ?? [];
    expect(handles.map((decision) => [decision.messageIndex, decision.action])).toEqual([
      [2, 'kept'],
      [4, 'kept'],
    ]);
  });

  it('a conversation past 64 KiB (its bodies parsed in pieces, repeated messages reused) keeps every turn; a tampered handle in it is still dropped', async () => {
    const sessionId = 'large-body-1';
    const { gateway, store, upstreams } = await doors.gateway(['deepseek']);
    const chat = messagesConversation(doors.anthropic(gateway, { 'x-claude-code-session-id': sessionId }), 'deepseek');
    const notes = `notes ${'lorem ipsum é 🙂 "quoted" \\ '.repeat(3000)}`;
    await chat.turn(`remember these ${notes}`, { stream: false });
    await chat.turn('read the file notes.txt', { stream: true });
    const thinking = (chat.messages[1]?.content as Anthropic.ContentBlockParam[])[0] as Anthropic.ThinkingBlockParam;
    thinking.signature = `${thinking.signature.slice(0, -6)}AAAAAA`;
    const [answer] = await chat.turn('thanks', { stream: false });
    expect(messageText(answer!)).toContain('Reasoning continuity: intact (3/3).');
    expect(statuses(upstreams['deepseek']!)).toEqual([200, 200, 200, 200]);
    const stored = await store.listMessages(sessionId);
    expect(stored[0]?.content).toBe(`remember these ${notes}`);
    const last = (await requestsOf(gateway.url, sessionId)).at(-1);
    expect(last?.decisions).toContainEqual(
      expect.objectContaining({ messageIndex: 1, field: 'handle content[0].signature', action: 'dropped' }),
    );
  });

  it('a tampered handle is dropped, the turn still answers, and the inspector shows why', async () => {
    const sessionId = 'tampered-1';
    const { gateway, upstreams } = await doors.gateway(['deepseek']);
    const chat = messagesConversation(doors.anthropic(gateway, { 'x-claude-code-session-id': sessionId }), 'deepseek');
    await chat.turn('read the file notes.txt', { stream: false });
    const thinking = (chat.messages[1]?.content as Anthropic.ContentBlockParam[])[0] as Anthropic.ThinkingBlockParam;
    thinking.signature = `${thinking.signature.slice(0, -6)}AAAAAA`;
    const [answer] = await chat.turn('thanks', { stream: true });
    expect(messageText(answer!)).toContain('Reasoning continuity: intact (2/2).'); // the readable text still travels
    expect(statuses(upstreams['deepseek']!)).toEqual([200, 200, 200]);
    const last = (await requestsOf(gateway.url, sessionId)).at(-1);
    expect(last?.decisions).toContainEqual({
      messageIndex: 1,
      field: 'handle content[0].signature',
      action: 'dropped',
      reason: 'does not authenticate (altered, truncated, or moved from another field)',
      bytes: thinking.signature.length,
    });
  });

  it('Codex session-id keys a Responses session the same way', async () => {
    const { gateway, store } = await doors.gateway(['deepseek']);
    const codex = responsesConversation(
      doors.openai(gateway, { 'session-id': 'codex-7' }),
      'deepseek',
      'You are Codex.',
    );
    const responses = await codex.turn('read the file notes.txt', { stream: true });
    expect(responseText(responses.at(-1)!)).toContain('The tool returned: alpha beta');
    expect((await store.listMessages('codex-7')).map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('learns a rejected carrier once (session model_config and store-wide), the turn answers after one retry', async () => {
    const { gateway, store, upstreams } = await doors.gateway(
      ['openrouter'],
      {},
      { openrouter: { rejectKeys: ['reasoning_details'] } },
    );
    const chat = messagesConversation(doors.anthropic(gateway, { 'x-hermes-session-id': 'learns' }), 'openrouter');
    await chat.turn('read the file notes.txt', { stream: false });
    expect(statuses(upstreams['openrouter']!)).toEqual([200, 400, 200]);
    const routeKey = 'openrouter|127.0.0.1|anthropic/claude-sonnet-4.5';
    expect((await store.getVerdict(routeKey))?.fields).toContain('reasoning_details');
    expect(JSON.stringify((await store.getSession('learns'))?.modelConfig)).toContain('reasoning_details');
    // A stateless client later: the store-wide verdict applies at once, nothing is retried.
    const stateless = messagesConversation(doors.anthropic(gateway), 'openrouter');
    await stateless.turn('read the file notes.txt', { stream: true });
    expect(statuses(upstreams['openrouter']!)).toEqual([200, 400, 200, 200, 200]);
  });

  it('a store that cannot take the session: the turn still answers, stateless (the client holds the history)', async () => {
    const memory = createMemorySessionStore();
    const refusing = new Proxy(memory, {
      get(target, key, receiver) {
        if (key === 'createSession' || key === 'writeTurn') {
          return () => Promise.reject(new Error('attempt to write a readonly database'));
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const { gateway } = await doors.gateway(['deepseek'], { store: refusing });
    const chat = messagesConversation(doors.anthropic(gateway, { 'x-claude-code-session-id': 'ro-1' }), 'deepseek');
    const answers = await chat.turn('read the file notes.txt', { stream: false });
    expect(messageText(answers.at(-1)!)).toContain('Reasoning continuity: intact (1/1).');
    expect(await memory.listSessions()).toEqual([]);
  });

  it('without a session header nothing is stored; a malformed one is a 400', async () => {
    const { gateway, store } = await doors.gateway(['deepseek']);
    await messagesConversation(doors.anthropic(gateway), 'deepseek').turn('read the file notes.txt', { stream: false });
    expect(await store.listSessions()).toEqual([]);
    const refused = await doors
      .anthropic(gateway, { 'x-claude-code-session-id': 'has spaces' })
      .messages.create({ model: 'deepseek', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as Error).message).toContain('x-claude-code-session-id header must be');
  });
});

describe('what a mirrored turn appends', () => {
  const user = (text: string): Message => ({ role: 'user', content: text });
  const assistant = (text: string): Message => ({ role: 'assistant', content: text });
  const system: Message = { role: 'system', content: 's' };

  it.each([
    ['an empty session: the whole client history', [], [system, user('a')], [system, user('a')]],
    [
      'a continuation: what lies past the stored prefix',
      [system, user('a'), assistant('b')],
      [system, user('a'), assistant('b'), user('c')],
      [user('c')],
    ],
    [
      'a compacted or edited history: the input after its last assistant turn',
      [system, user('a'), assistant('b')],
      [user('summary'), assistant('ok'), user('d')],
      [user('d')],
    ],
  ] as const)('%s', (_what, stored, client, expected) => {
    expect(newMessages(stored, client)).toEqual(expected);
  });
});
