import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { buildChatReplay } from '../../src/replay/replay-chat-messages.js';
import { resolveRouteProfile, NOTHING_LEARNED } from '../../src/replay/replay-route-profile.js';
import {
  currentTurnStart,
  effectiveRequirement,
  GEMINI_PLACEHOLDER_SIGNATURE,
} from '../../src/replay/replay-stand-ins.js';
import { toolCall } from '../support/messages.js';

/** SPEC §26.2: stand-ins for carriers a route requires. */

const gemini: Route = {
  api: 'chat_completions',
  provider: 'gemini',
  model: 'gemini-3-pro-preview',
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
};
const copilot: Route = {
  api: 'chat_completions',
  provider: 'copilot',
  model: 'claude-sonnet-4.5',
  baseUrl: 'https://api.githubcopilot.com',
};
const openrouterClaude: Route = {
  api: 'chat_completions',
  provider: 'openrouter',
  model: 'anthropic/claude-sonnet-4.5',
};

/** A tool loop of another model (no carriers) in an earlier turn and in the current one. */
const history: Message[] = [
  { role: 'user', content: 'first' },
  { role: 'assistant', content: null, tool_calls: [toolCall('old_1', 'read_file', '{"path":"a"}')] },
  { role: 'tool', tool_call_id: 'old_1', content: 'A' },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'second' },
  { role: 'assistant', content: 'let me look', tool_calls: [toolCall('new_1', 'read_file', '{"path":"b"}')] },
  { role: 'tool', tool_call_id: 'new_1', content: 'B' },
];

function build(route: Route, learned: Partial<typeof NOTHING_LEARNED> = {}) {
  return buildChatReplay(history, resolveRouteProfile(route), { ...NOTHING_LEARNED, ...learned });
}

describe('which routes require a carrier', () => {
  test.each([
    [gemini, 'thought_signature', 'placeholder'],
    [{ ...gemini, model: 'gemini-2.5-pro' }, null, null],
    [copilot, 'reasoning_opaque', 'text'],
    [{ ...copilot, model: 'gpt-5.4' }, null, null],
    [openrouterClaude, 'reasoning_details', 'text'],
    [{ ...openrouterClaude, model: 'deepseek/deepseek-v4' }, null, null],
    [{ api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' } as Route, null, null],
  ])('%j: %s (%s)', (route, carrier, standIn) => {
    const required = resolveRouteProfile(route).chat.requiredCarrier;
    expect(required === null ? [null, null] : [required.carrier, required.standIn]).toEqual([carrier, standIn]);
  });

  test('what a rejection taught adjusts it: a placeholder for an unknown route, text once the placeholder is refused', () => {
    expect(effectiveRequirement(null, 'placeholder')).toMatchObject({
      carrier: 'thought_signature',
      standIn: 'placeholder',
    });
    expect(effectiveRequirement(null, 'text')).toMatchObject({ standIn: 'text' });
    const gem = resolveRouteProfile(gemini).chat.requiredCarrier;
    expect(effectiveRequirement(gem, 'text')).toMatchObject({ carrier: 'thought_signature', standIn: 'text' });
  });

  test('the current turn starts after the last user message', () => {
    expect(currentTurnStart(history)).toBe(5);
    expect(currentTurnStart([{ role: 'assistant', content: 'x' }])).toBe(0);
  });
});

describe('stand-ins on the wire', () => {
  test('Gemini: the placeholder on the first call of every step without a signature, with a decision each', () => {
    const replay = build(gemini);
    for (const index of [1, 5]) {
      const calls = replay.messages[index]?.['tool_calls'] as JsonObject[];
      expect(calls[0]?.['extra_content']).toEqual({ google: { thought_signature: GEMINI_PLACEHOLDER_SIGNATURE } });
    }
    const padded = replay.decisions.filter((decision) => decision.action === 'padded');
    expect(padded.map((decision) => decision.messageIndex)).toEqual([1, 5]);
    expect(padded[0]?.reason).toContain("stand-in: Google's placeholder signature");
  });

  test('a step that keeps its own signature gets no placeholder', () => {
    const own: Message[] = history.map((message) =>
      message.role === 'assistant' && message.tool_calls
        ? {
            ...message,
            tool_calls: message.tool_calls.map((call) => ({
              ...call,
              extra_content: { google: { thought_signature: 'REAL' } },
            })),
            origin: {
              api: 'chat_completions',
              provider: 'gemini',
              host: 'generativelanguage.googleapis.com',
              model: gemini.model,
            },
          }
        : message,
    );
    const replay = buildChatReplay(own, resolveRouteProfile(gemini), NOTHING_LEARNED);
    expect(JSON.stringify(replay.messages)).not.toContain(GEMINI_PLACEHOLDER_SIGNATURE);
    expect(JSON.stringify(replay.messages)).toContain('REAL');
  });

  test.each([copilot, openrouterClaude])(
    "%j: the current turn's step goes as text, earlier turns stay tool calls",
    (route) => {
      const replay = build(route);
      expect(replay.messages[1]?.['tool_calls']).toBeDefined();
      expect(replay.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'old_1' });
      expect(replay.messages[5]).toEqual({
        role: 'assistant',
        content: 'let me look\n[tool call read_file {"path":"b"}]',
      });
      expect(replay.messages[6]).toEqual({ role: 'user', content: '[tool result read_file]\nB' });
      expect(replay.decisions).toContainEqual(
        expect.objectContaining({
          messageIndex: 5,
          field: 'tool_calls',
          action: 'lifted',
          reason: expect.stringContaining('sent as text'),
        }),
      );
    },
  );

  test('a relay of Claude with thinking off requires nothing', () => {
    const replay = buildChatReplay(history, resolveRouteProfile(openrouterClaude), NOTHING_LEARNED, {
      reasoningEnabled: false,
    });
    expect(replay.messages[5]?.['tool_calls']).toBeDefined();
  });

  test('the history is never written to', () => {
    const before = JSON.stringify(history);
    build(copilot);
    build(gemini);
    expect(JSON.stringify(history)).toBe(before);
  });
});
