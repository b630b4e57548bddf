/**
 * SPEC §24.2 (MiniMax over the Anthropic API) and SPEC §24.3 (demoted thinking keeps its text),
 * through the pure Anthropic replay engine and the request encoder.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import { anthropicEndpointClass, classifyAnthropicRoute } from '../../src/replay/anthropic-endpoint-route.js';
import { buildAnthropicMessages, type AnthropicReplayOptions } from '../../src/replay/anthropic-replay.js';
import { hostnameOf } from '../../src/replay/replay-host.js';
import { prepareAnthropicMessages } from '../../src/transports/anthropic-messages/anthropic-messages-encode.js';
import type { TransportRequest } from '../../src/transports/shared/transport.js';
import { block, decision, toolCall, wireAssistant } from '../support/messages.js';

const MINIMAX_URL = 'https://api.minimax.io/anthropic';

function optionsFor(baseUrl: string | undefined, model: string, provider: string): AnthropicReplayOptions {
  return {
    treatment: classifyAnthropicRoute({ baseUrl, model, provider }),
    model,
    endpointClass: anthropicEndpointClass(hostnameOf(baseUrl), provider),
    thinkingEnabled: true,
  };
}

const claude: OriginStamp = { api: 'anthropic_messages', provider: 'anthropic', host: '', model: 'claude-opus-4-8' };
const minimaxOrigin: OriginStamp = {
  api: 'anthropic_messages',
  provider: 'minimax',
  host: 'api.minimax.io',
  model: 'MiniMax-M3',
};
const deepseekChat: OriginStamp = {
  api: 'chat_completions',
  provider: 'deepseek',
  host: 'api.deepseek.com',
  model: 'deepseek-v4-flash',
};

/** A completed turn from `origin` with signed thinking, then an in-flight tool loop from `loopOrigin`. */
function history(origin: OriginStamp, loopOrigin: OriginStamp): Message[] {
  return [
    { role: 'user', content: 'q1' },
    {
      role: 'assistant',
      content: 'a1',
      anthropic_content_blocks: [block.thinking('think one', 'SIG1'), block.redacted('REDACTED'), block.text('a1')],
      origin,
    },
    { role: 'user', content: 'read a.txt' },
    {
      role: 'assistant',
      content: null,
      reasoning_content: 'think two',
      tool_calls: [toolCall('call_1', 'read_file', '{"path":"a.txt"}')],
      origin: loopOrigin,
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
  ];
}

/** A signed tool-call turn from `origin` whose second call was never answered (its tool_use is an orphan). */
function halfOrphanedTurn(origin: OriginStamp): Message[] {
  return [
    { role: 'user', content: 'q' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('t1', 'f'), toolCall('t2', 'g')],
      anthropic_content_blocks: [block.thinking('plan', 'S'), block.toolUse('t1', 'f'), block.toolUse('t2', 'g')],
      origin,
    },
    { role: 'tool', tool_call_id: 't1', content: 'ok' },
    { role: 'user', content: 'next' },
  ];
}

describe('SPEC §24.2: the minimax route replays unsigned and foreign thinking as real thinking blocks', () => {
  const minimax = optionsFor(MINIMAX_URL, 'MiniMax-M3', 'minimax');

  it('classifies api.minimax.io/anthropic as the minimax route', () => {
    expect(minimax.treatment).toBe('minimax');
  });

  it('foreign Claude thinking loses its signature, keeps its text as thinking; redacted data is dropped', () => {
    const result = buildAnthropicMessages(history(claude, deepseekChat), minimax);
    expect(result.messages[1]).toEqual(wireAssistant(block.thinking('think one'), block.text('a1')));
    expect(result.decisions).toContainEqual(
      decision(1, 'thinking', 'kept', 'unsigned: minimax accepts unsigned (foreign origin)', 9),
    );
    expect(result.decisions).toContainEqual(
      expect.objectContaining({ messageIndex: 1, field: 'redacted_thinking', action: 'dropped' }),
    );
  });

  it('the in-flight tool loop after a fallback to MiniMax keeps its reasoning as a leading thinking block', () => {
    const result = buildAnthropicMessages(history(claude, deepseekChat), minimax);
    expect(result.messages[3]).toEqual(
      wireAssistant(block.thinking('think two'), block.toolUse('call_1', 'read_file', { path: 'a.txt' })),
    );
  });

  it('MiniMax-issued signed thinking goes back byte for byte with its signature', () => {
    const result = buildAnthropicMessages(history(minimaxOrigin, minimaxOrigin), minimax);
    expect(result.messages[1]?.['content']).toEqual([
      block.thinking('think one', 'SIG1'),
      block.redacted('REDACTED'),
      block.text('a1'),
    ]);
  });

  it('the same history on the native Anthropic route demotes the unsigned loop thinking to text instead', () => {
    const native = optionsFor(undefined, 'claude-opus-4-8', 'anthropic');
    const result = buildAnthropicMessages(history(claude, deepseekChat), native);
    expect(result.messages[3]?.['content']).toEqual([
      block.demoted('think two'),
      block.toolUse('call_1', 'read_file', { path: 'a.txt' }),
    ]);
  });

  function request(model: string, enabled: boolean): TransportRequest {
    return {
      route: { api: 'anthropic_messages', provider: 'minimax', model, baseUrl: MINIMAX_URL },
      history: [{ role: 'user', content: 'hi' }],
      tools: [],
      reasoning: { enabled, effort: 'high' },
    };
  }

  it.each([
    ['MiniMax-M3', true, { type: 'adaptive' }],
    ['minimax-m3', true, { type: 'adaptive' }],
    ['MiniMax-M3', false, { type: 'disabled' }],
  ])('%s with reasoning %s asks for thinking exactly %j (SPEC §25.2: the exact id)', (model, enabled, thinking) => {
    const body = prepareAnthropicMessages(request(model, enabled)).body;
    expect(body['thinking']).toEqual(thinking);
    expect(body['output_config']).toBeUndefined();
    expect(prepareAnthropicMessages(request(model, enabled)).url).toBe(`${MINIMAX_URL}/v1/messages`);
  });

  it.each(['MiniMax-M3-preview', 'minimax-m3-pro'])(
    'SPEC §25.2: the look-alike %s keeps enabled with budget_tokens',
    (model) => {
      const thinking = prepareAnthropicMessages(request(model, true)).body['thinking'];
      expect(thinking).toEqual({ type: 'enabled', budget_tokens: expect.any(Number) as number });
    },
  );

  it('SPEC §25.1: thinking invalidated by an orphan tool_use removal is sent neither as thinking nor as text', () => {
    const result = buildAnthropicMessages(halfOrphanedTurn(minimaxOrigin), minimax);
    expect(result.messages[1]).toEqual({ role: 'assistant', content: [block.toolUse('t1', 'f')] });
    expect(result.decisions).toContainEqual(decision(1, 'thinking', 'dropped', 'signature invalidated', 1));
    // A message stored already flagged as invalidated (`_thinking_signature_invalidated`) is not sent either.
    const [question, turn, ...rest] = halfOrphanedTurn(minimaxOrigin);
    const flagged = [question!, { ...turn!, _thinking_signature_invalidated: true } as Message, ...rest];
    expect(JSON.stringify(buildAnthropicMessages(flagged, minimax).messages)).not.toContain('plan');
  });

  it('an older MiniMax model keeps the budget form and sends nothing with reasoning off', () => {
    expect(prepareAnthropicMessages(request('MiniMax-M2', true)).body['thinking']).toMatchObject({ type: 'enabled' });
    expect(prepareAnthropicMessages(request('MiniMax-M2', false)).body['thinking']).toBeUndefined();
  });
});

describe('SPEC §24.3, §25.3: thinking that cannot travel as thinking keeps its text', () => {
  const native = optionsFor(undefined, 'claude-opus-4-8', 'anthropic');

  it('SPEC §25.3: unsigned thinking on the signed-only route goes as bare text (no <thinking> tags) ahead of the turn’s own text', () => {
    const messages: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'answer', reasoning_content: 'my reasoning', origin: deepseekChat },
      { role: 'user', content: 'next' },
    ];
    expect(buildAnthropicMessages(messages, native).messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'my reasoning' },
        { type: 'text', text: 'answer' },
      ],
    });
  });

  it('a turn with one answered and one orphaned call keeps its invalidated thinking as text', () => {
    const result = buildAnthropicMessages(halfOrphanedTurn(claude), native);
    expect(result.messages[1]).toEqual(wireAssistant(block.demoted('plan'), block.toolUse('t1', 'f')));
    expect(result.decisions).toContainEqual(
      decision(1, 'thinking', 'lifted', 'demoted to text: signature invalidated', 4),
    );
  });

  it('a turn whose every call was orphaned gets the placeholder first, even with text of its own', () => {
    const messages: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [toolCall('t1', 'f')],
        reasoning_content: 'plan',
        origin: claude,
      },
      { role: 'user', content: 'never mind' },
    ];
    expect(buildAnthropicMessages(messages, native).messages[1]).toEqual(
      wireAssistant(block.text('(thinking elided)'), block.text('Let me look.')),
    );
  });

  it('with thinking off for the request, readable thinking still travels as text; redacted data does not', () => {
    const result = buildAnthropicMessages(history(claude, claude), { ...native, thinkingEnabled: false });
    expect(result.messages[1]?.['content']).toEqual([block.demoted('think one'), block.text('a1')]);
    expect(result.decisions).toContainEqual(
      expect.objectContaining({ messageIndex: 1, field: 'redacted_thinking', action: 'dropped' }),
    );
  });

  it('a request forced to thinking off (WIRE.md §2.6a) sends the loop’s thinking as text', () => {
    // The in-flight turn's thinking is a remembered rejected signature: the request goes without thinking.
    const messages = history(claude, claude);
    const prepared = prepareAnthropicMessages({
      route: { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' },
      history: [
        ...messages.slice(0, 3),
        {
          role: 'assistant',
          content: null,
          tool_calls: [toolCall('call_1', 'read_file')],
          anthropic_content_blocks: [block.thinking('think two', 'BAD'), block.toolUse('call_1', 'read_file')],
          _thinking_signature_invalidated: true,
          origin: claude,
        },
        messages[4]!,
      ],
      tools: [],
      reasoning: { enabled: true },
    });
    expect(prepared.body['thinking']).toBeUndefined();
    const assistants = (prepared.body['messages'] as { role: string; content: unknown }[]).filter(
      (message) => message.role === 'assistant',
    );
    expect(assistants[1]?.content).toEqual([block.demoted('think two'), block.toolUse('call_1', 'read_file')]);
    expect(assistants[0]?.content).toEqual([block.demoted('think one'), block.text('a1')]);
  });
});
