import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../src/gateway/gateway-chat-request.js';
import { GatewayHttpError } from '../../src/gateway/gateway-errors.js';
import { thrownBy } from '../support/thrown.js';

/**
 * The rule that picks the NEW user input out of the client's resent history
 * (SPEC §19: the store is authoritative): the user messages after the last assistant message.
 */

const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });

describe('parseChatRequest: new user messages', () => {
  it.each([
    { name: 'first turn', messages: [user('hi')], userTexts: ['hi'], systemTexts: [] },
    {
      name: 'resent history: only what follows the last assistant',
      messages: [user('one'), assistant('a1'), user('two'), assistant('a2'), user('three')],
      userTexts: ['three'],
      systemTexts: [],
    },
    {
      name: 'several new user messages',
      messages: [user('one'), assistant('a1'), user('two'), user('three')],
      userTexts: ['two', 'three'],
      systemTexts: [],
    },
    {
      name: 'system prompt collected, tool messages ignored',
      messages: [
        { role: 'system', content: 'be brief' },
        user('one'),
        assistant('a1'),
        { role: 'tool', content: 'x', tool_call_id: 'c' },
        user('two'),
      ],
      userTexts: ['two'],
      systemTexts: ['be brief'],
    },
    {
      name: 'content parts: text parts joined',
      messages: [
        user([
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'x' } },
          { type: 'text', text: 'here' },
        ]),
      ],
      userTexts: ['look\nhere'],
      systemTexts: [],
    },
  ])('$name', ({ messages, userTexts, systemTexts }) => {
    const parsed = parseChatRequest({ model: 'm', messages });
    expect(parsed.userTexts).toEqual(userTexts);
    expect(parsed.systemTexts).toEqual(systemTexts);
  });

  it.each([
    { name: 'not an object', body: [1], message: 'the request body must be a JSON object with a "messages" array' },
    { name: 'no messages', body: { messages: [] }, message: '"messages" must be a non-empty array of chat messages' },
    {
      name: 'nothing after the last assistant',
      body: { messages: [user('one'), assistant('a1')] },
      message:
        'no new user message: the gateway answers the user message(s) after the last assistant message in "messages"',
    },
    {
      name: 'message without role',
      body: { messages: [{ content: 'x' }] },
      message: 'messages[0] must be an object with a "role"',
    },
    {
      name: 'bad session_id',
      body: { messages: [user('x')], session_id: 5 },
      message: '"session_id" must be a non-empty string',
    },
  ])('400 when $name', ({ body, message }) => {
    const thrown = thrownBy(() => parseChatRequest(body));
    expect(thrown).toBeInstanceOf(GatewayHttpError);
    expect((thrown as GatewayHttpError).status).toBe(400);
    expect((thrown as GatewayHttpError).message).toBe(message);
  });

  it('reads stream, stream_options.include_usage, session_id and model', () => {
    expect(
      parseChatRequest({
        model: 'x',
        stream: true,
        stream_options: { include_usage: true },
        session_id: 's1',
        messages: [user('q')],
      }),
    ).toEqual({ userTexts: ['q'], systemTexts: [], stream: true, sessionId: 's1', model: 'x', includeUsage: true });
  });
});
