import { describe, expect, test } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { restoreFromSession, storedTurnsOf, visibleKey } from '../../src/gateway/gateway-front-door-restore.js';
import type { ClientHistory } from '../../src/gateway/gateway-front-door-handles.js';
import { toolCall } from '../support/messages.js';

/** SPEC §26.1: matching a client's turns with the mirrored session's, and what is restored. */

const origin = { api: 'chat_completions' as const, provider: 'openrouter', host: 'openrouter.ai', model: 'm' };
const signed = [{ type: 'reasoning.text', text: 'plan', signature: 'SIG' }];

const stored: Message[] = [
  { role: 'user', content: 'read it' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [toolCall('call_1', 'read_file', '{"path":"notes.txt"}')],
    reasoning: 'plan',
    reasoning_details: signed,
    origin,
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'alpha' },
  { role: 'assistant', content: 'It says alpha.', reasoning: 'summary', origin },
];

function client(messages: Message[]): ClientHistory {
  return { messages, echoes: new Map() };
}

describe('restoreFromSession', () => {
  test('turns the client stripped get the session copy, by what the client sees, re-serialised arguments included', () => {
    const history = client([
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: null, tool_calls: [toolCall('call_1', 'read_file', '{ "path" : "notes.txt" }')] },
      { role: 'tool', tool_call_id: 'call_1', content: 'alpha' },
      { role: 'assistant', content: 'It says alpha.  ' },
      { role: 'user', content: 'thanks' },
    ]);
    const decisions = restoreFromSession(history, storedTurnsOf(stored), []);
    const first = history.messages[1] as AssistantMessage;
    expect(first.reasoning_details).toEqual(signed);
    expect(first.origin).toEqual(origin);
    // The client's visible bytes stay.
    expect(first.tool_calls?.[0]?.function.arguments).toBe('{ "path" : "notes.txt" }');
    expect((history.messages[3] as AssistantMessage).reasoning).toBe('summary');
    expect(decisions.map((decision) => [decision.messageIndex, decision.action])).toEqual([
      [1, 'restored'],
      [3, 'restored'],
    ]);
    expect(decisions[0]?.reason).toBe('restored from session: the client sent no reasoning');
  });

  test('a cut reasoning_content is replaced; an equal copy is kept without a decision', () => {
    const history = client([
      { role: 'user', content: 'read it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('call_1', 'read_file', '{"path":"notes.txt"}')],
        reasoning_content: 'pl',
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'alpha' },
      { role: 'assistant', content: 'It says alpha.', reasoning: 'summary', origin },
    ]);
    const decisions = restoreFromSession(history, storedTurnsOf(stored), []);
    expect((history.messages[1] as AssistantMessage).reasoning_content).toBeUndefined();
    expect((history.messages[1] as AssistantMessage).reasoning).toBe('plan');
    expect(decisions.map((decision) => [decision.messageIndex, decision.action])).toEqual([[1, 'restored']]);
    expect(decisions[0]?.reason).toContain('the client sent only readable reasoning (2 B)');
  });

  test('turns match in order: a turn that matches only an earlier session turn is not restored', () => {
    const history = client([
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: 'It says alpha.', reasoning: 'summary', origin },
      { role: 'assistant', content: null, tool_calls: [toolCall('call_1', 'read_file', '{"path":"notes.txt"}')] },
    ]);
    const decisions = restoreFromSession(history, storedTurnsOf(stored), []);
    expect(decisions.map((decision) => [decision.messageIndex, decision.action])).toEqual([[2, 'kept']]);
    expect(decisions[0]?.reason).toContain('no turn of the session matches it');
  });

  test('an edited turn keeps the client bytes, explained', () => {
    const history = client([
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: null, tool_calls: [toolCall('call_1', 'read_file', '{"path":"other.txt"}')] },
    ]);
    const decisions = restoreFromSession(history, storedTurnsOf(stored), []);
    expect((history.messages[1] as AssistantMessage).reasoning_details).toBeUndefined();
    expect(decisions).toEqual([expect.objectContaining({ messageIndex: 1, action: 'kept', field: 'session copy' })]);
  });

  test('where a handle and the session disagree, the session wins', () => {
    const history = client([
      { role: 'user', content: 'read it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('call_1', 'read_file', '{"path":"notes.txt"}')],
        reasoning: 'something else',
        reasoning_details: [{ type: 'reasoning.text', text: 'something else', signature: 'OTHER' }],
        origin,
      },
    ]);
    restoreFromSession(history, storedTurnsOf(stored), []);
    expect((history.messages[1] as AssistantMessage).reasoning_details).toEqual(signed);
  });

  test('a turn an in-place compaction archived is restored without its archive mark', () => {
    const archived = stored.map((message) => (message.role === 'assistant' ? { ...message, _archived: 1 } : message));
    const history = client([
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: null, tool_calls: [toolCall('call_1', 'read_file', '{"path":"notes.txt"}')] },
    ]);
    restoreFromSession(history, storedTurnsOf(archived as Message[]), []);
    const restored = history.messages[1] as AssistantMessage & { _archived?: number };
    expect(restored.reasoning_details).toEqual(signed);
    expect(restored._archived).toBeUndefined();
  });

  test('an empty session restores nothing', () => {
    const history = client([{ role: 'assistant', content: 'x' }]);
    expect(restoreFromSession(history, storedTurnsOf([]), [])).toEqual([]);
  });

  test('the visible key ignores carriers and whitespace around the text', () => {
    const bare: AssistantMessage = { role: 'assistant', content: ' It says alpha. ' };
    expect(visibleKey(bare)).toBe(visibleKey(stored[3] as AssistantMessage));
  });
});
