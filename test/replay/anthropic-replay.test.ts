/**
 * SPEC §9.3 per-route conversion and its matrix of which prior turns keep (signed) thinking,
 * plus SPEC §23.2 origin scoping and SPEC §9.4 fingerprint dropping.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import { anthropicEndpointClass, classifyAnthropicRoute } from '../../src/replay/anthropic-endpoint-route.js';
import { buildAnthropicMessages, type AnthropicReplayOptions } from '../../src/replay/anthropic-replay.js';
import { fingerprintOf } from '../../src/replay/anthropic-signature-memory.js';
import { hostnameOf } from '../../src/replay/replay-host.js';
import { ANTHROPIC_BASE_URLS as URL } from '../support/anthropic-routes.js';
import { block, decision, signedAnswer, toolCall, wireAssistant } from '../support/messages.js';

function optionsFor(baseUrl: string | undefined, model: string, provider = 'anthropic'): AnthropicReplayOptions {
  return {
    treatment: classifyAnthropicRoute({ baseUrl, model, provider }),
    model,
    endpointClass: anthropicEndpointClass(hostnameOf(baseUrl), provider),
    thinkingEnabled: true,
  };
}

function originFor(baseUrl: string | undefined, model: string, provider = 'anthropic'): OriginStamp {
  return { api: 'anthropic_messages', provider, host: hostnameOf(baseUrl), model };
}

/** Prior completed turn (A1), a real user turn, then the in-flight tool loop (A2 + its result). */
function matrixHistory(origin: OriginStamp): Message[] {
  return [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'q1' },
    { ...signedAnswer('a1', 'think one', 'SIG1', origin), reasoning_content: 'think one' },
    { role: 'user', content: 'read the file a.txt' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('toolu_1', 'read_file', '{"path":"a.txt"}')],
      reasoning_content: 'think two',
      anthropic_content_blocks: [
        block.thinking('think two', 'SIG2'),
        block.toolUse('toolu_1', 'read_file', { path: 'a.txt' }),
      ],
      origin,
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'hello' },
  ];
}

/** Which assistant turns (by order) carry a signed thinking block on the wire. */
function signedTurns(messages: ReturnType<typeof buildAnthropicMessages>['messages']): string {
  const assistants = messages.filter((message) => message['role'] === 'assistant');
  const signed = assistants.map((message) =>
    (message['content'] as { type: string; signature?: string }[]).some(
      (block) => block.type === 'thinking' && typeof block.signature === 'string' && block.signature !== '',
    ),
  );
  if (signed.every(Boolean)) return 'ALL';
  if (signed.join() === 'false,true') return 'LOOP';
  if (signed.every((value) => !value)) return 'NONE';
  return signed.join();
}

describe('SPEC §9.3 matrix: which prior turns keep thinking, per endpoint and model', () => {
  const matrix: [string, string | undefined, string, string, string?][] = [
    ['Bedrock opus-4-8', URL.bedrock, 'us.anthropic.claude-opus-4-8-v1:0', 'ALL'],
    ['Bedrock sonnet-4-5', URL.bedrock, 'us.anthropic.claude-sonnet-4-5-v1:0', 'LOOP'],
    ['Bedrock FIPS', URL.bedrockFips, 'anthropic.claude-opus-4-8-v1:0', 'ALL'],
    ['Vertex', URL.vertex, 'claude-opus-4-8', 'ALL'],
    ['Foundry', URL.foundry, 'claude-opus-4-8', 'ALL'],
    ['MiniMax', URL.minimax, 'MiniMax-M2', 'ALL', 'minimax'],
    ['direct haiku-5-5', undefined, 'claude-haiku-5-5', 'ALL'],
    ['direct haiku-4-5', undefined, 'claude-haiku-4-5', 'LOOP'],
    ['direct sonnet-4-5', undefined, 'claude-sonnet-4-5', 'LOOP'],
    ['direct opus-4-8', 'https://api.anthropic.com', 'claude-opus-4-8', 'ALL'],
    ['unknown relay', URL.relay, 'claude-opus-4-8', 'NONE', 'relay'],
    ['look-alike path', URL.lookAlikePath, 'claude-opus-4-8', 'NONE', 'relay'],
    ['look-alike host', URL.lookAlikeHost, 'claude-opus-4-8', 'NONE', 'relay'],
    // SPEC §24.1: "NONE" for DeepSeek means no signed thinking; its loop thinking goes unsigned (test below).
    ['DeepSeek', URL.deepseek, 'deepseek-reasoner', 'NONE', 'deepseek'],
    ['DeepSeek model on Bedrock', URL.bedrock, 'us.deepseek.r1-v1:0', 'NONE', 'bedrock'],
    ['Kimi (not a signed route, kept as-is)', URL.kimi, 'kimi-for-coding', 'ALL', 'kimi'],
  ];
  it.each(matrix)('%s → %s', (_name, baseUrl, model, expected, provider = 'anthropic') => {
    const options = optionsFor(baseUrl, model, provider);
    const result = buildAnthropicMessages(matrixHistory(originFor(baseUrl, model, provider)), options);
    expect(signedTurns(result.messages)).toBe(expected);
  });
});

describe('SPEC §9.3 conversion rules (exact messages)', () => {
  const direct = optionsFor(undefined, 'claude-opus-4-8');
  const origin = originFor(undefined, 'claude-opus-4-8');

  it('sidecar is authoritative: whitelisted, cache_control removed from thinking, tool_use.input from tool_calls', () => {
    const history: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'IGNORED: sidecar text wins',
        tool_calls: [toolCall('t1', 'f', '{"x":2}')],
        anthropic_content_blocks: [
          { ...block.thinking('plan', 'S'), cache_control: { type: 'ephemeral' } },
          { ...block.text('calling'), extra: 1 },
          block.toolUse('t1', 'f', { x: 1 }),
          { type: 'mystery', data: 'x' },
        ],
        origin,
      },
      { role: 'tool', tool_call_id: 't1', content: 'ok' },
    ];
    const before = structuredClone(history);
    const result = buildAnthropicMessages(history, direct);
    expect(result.messages).toEqual([
      { role: 'user', content: [block.text('go')] },
      wireAssistant(block.thinking('plan', 'S'), block.text('calling'), block.toolUse('t1', 'f', { x: 2 })),
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    ]);
    expect(history).toEqual(before);
    expect(result.decisions).toContainEqual(decision(1, 'mystery', 'dropped', 'unknown block type'));
  });

  it('without a sidecar, blocks are rebuilt from reasoning_details, text, tool_calls', () => {
    const reasoningDetails = (): JsonObject[] => [block.thinking('p', 'S'), block.redacted('D')];
    const history: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'hi',
        reasoning_details: [...reasoningDetails(), { type: 'hermes.native_assistant', x: 1 }],
        origin,
      },
    ];
    expect(buildAnthropicMessages(history, direct).messages[1]).toEqual(
      wireAssistant(...reasoningDetails(), block.text('hi')),
    );
  });

  it('unsigned synthesis only when no block exists; treatment per route', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'answer', reasoning_content: 'why' };
    const history: Message[] = [{ role: 'user', content: 'q' }, message];
    const kimi = buildAnthropicMessages(history, optionsFor('https://api.kimi.com/coding', 'kimi-for-coding', 'kimi'));
    expect(kimi.messages[1]).toEqual(wireAssistant(block.thinking('why'), block.text('answer')));
    const native = buildAnthropicMessages(history, direct);
    expect(native.messages[1]).toEqual(wireAssistant(block.demoted('why'), block.text('answer')));
    const redacted = (): JsonObject[] => [block.redacted('D'), block.text('answer')];
    const withBlock: Message[] = [
      { role: 'user', content: 'q' },
      { ...message, anthropic_content_blocks: redacted() },
    ];
    expect(buildAnthropicMessages(withBlock, direct).messages[1]).toEqual(wireAssistant(...redacted()));
  });

  it('third_party strips all thinking and elides a turn left empty', () => {
    const options = optionsFor('https://relay.example.com', 'claude-opus-4-8', 'relay');
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, anthropic_content_blocks: [block.thinking('t', 'S')] },
      { role: 'user', content: 'next' },
    ];
    expect(buildAnthropicMessages(history, options).messages).toEqual([
      { role: 'user', content: [block.text('q')] },
      wireAssistant(block.text('(thinking elided)')),
      { role: 'user', content: [block.text('next')] },
    ]);
  });

  it('SPEC §24.1: deepseek drops signatures and redacted data; loop thinking goes back unsigned', () => {
    const options = optionsFor('https://api.deepseek.com/anthropic', 'deepseek-reasoner', 'deepseek');
    const history = matrixHistory(originFor('https://api.deepseek.com/anthropic', 'deepseek-reasoner', 'deepseek'));
    (history[4] as AssistantMessage).anthropic_content_blocks!.unshift(block.redacted('D'));
    const result = buildAnthropicMessages(history, options);
    expect(result.messages[1]).toEqual(wireAssistant(block.text('a1')));
    expect(result.messages[3]).toEqual(
      wireAssistant(block.thinking('think two'), block.toolUse('toolu_1', 'read_file', { path: 'a.txt' })),
    );
  });

  it('a steer message merged into the tool-result turn does not end the in-flight loop (sonnet-4-5)', () => {
    const options = optionsFor(undefined, 'claude-sonnet-4-5');
    const history = [
      ...matrixHistory(originFor(undefined, 'claude-sonnet-4-5')),
      { role: 'user', content: 'also check b' } as Message,
    ];
    const result = buildAnthropicMessages(history, options);
    expect(signedTurns(result.messages)).toBe('LOOP');
    expect(result.messages[4]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello' }, block.text('also check b')],
    });
    // A new real user turn after the loop ends it: no turn keeps thinking on sonnet-4-5.
    const closed = [...matrixHistory(originFor(undefined, 'claude-sonnet-4-5'))];
    closed.push({ role: 'assistant', content: 'done', origin: originFor(undefined, 'claude-sonnet-4-5') });
    closed.push({ role: 'user', content: 'new question' });
    expect(signedTurns(buildAnthropicMessages(closed, options).messages)).toBe('NONE');
  });

  it('SPEC §24.3: a turn whose every tool call was orphaned gets the placeholder, not its plan', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('t1', 'f')],
        anthropic_content_blocks: [block.thinking('plan', 'S'), block.toolUse('t1', 'f')],
        origin,
      },
      { role: 'user', content: 'never mind' },
    ];
    const result = buildAnthropicMessages(history, direct);
    expect(result.messages[1]).toEqual(wireAssistant(block.text('(thinking elided)')));
    expect(result.decisions).toContainEqual(decision(1, 'tool_use', 'dropped', 'orphan tool_use'));
    // SPEC §25.5: a signed block counts its signature once (1 B), not signature plus text.
    expect(result.decisions).toContainEqual(decision(1, 'thinking', 'dropped', 'every tool call orphaned', 1));
  });

  it('a flagged _thinking_signature_invalidated message is not replayed as signed', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { ...signedAnswer('a', 'p', 'S'), _thinking_signature_invalidated: true },
    ];
    expect(buildAnthropicMessages(history, direct).messages[1]).toEqual(
      wireAssistant(block.demoted('p'), block.text('a')),
    );
  });

  it('merging two assistant messages strips the second one’s thinking', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      signedAnswer('one', 'p1', 'S1', origin),
      signedAnswer('two', 'p2', 'S2', origin),
    ];
    expect(buildAnthropicMessages(history, direct).messages[1]).toEqual(
      wireAssistant(block.thinking('p1', 'S1'), block.text('one'), block.text('two')),
    );
  });

  it('SPEC §23.2: signatures go back only to the same endpoint class and model', () => {
    const history = (stamp: OriginStamp | undefined): Message[] => [
      { role: 'user', content: 'q' },
      signedAnswer('a', 'p', 'S', stamp),
    ];
    const signedBlock = block.thinking('p', 'S');
    const demotedBlock = block.demoted('p');
    const cases: [string, OriginStamp | undefined, object][] = [
      ['same direct route', origin, signedBlock],
      ['legacy unstamped', undefined, signedBlock],
      ['other model', { ...origin, model: 'claude-opus-4-6' }, demotedBlock],
      [
        'Bedrock issuer',
        { ...origin, host: 'bedrock-runtime.us-east-1.amazonaws.com', provider: 'bedrock' },
        demotedBlock,
      ],
      ['chat-completions issuer', { ...origin, api: 'chat_completions', host: 'openrouter.ai' }, demotedBlock],
    ];
    for (const [name, stamp, expected] of cases) {
      const content = buildAnthropicMessages(history(stamp), direct).messages[1]?.['content'] as object[];
      expect([name, content[0]]).toEqual([name, expected]);
    }
  });

  it('SPEC §9.4: remembered fingerprints drop the block and its reasoning_content mirror; stripAllThinking strips once', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'a',
        reasoning_content: 'p1\n\np2',
        anthropic_content_blocks: [block.thinking('p1', 'S1'), block.thinking('p2', 'S2'), block.text('a')],
        origin,
      },
    ];
    const both = [fingerprintOf('thinking', 'S1'), fingerprintOf('thinking', 'S2')];
    const dropped = buildAnthropicMessages(history, { ...direct, rejectedFingerprints: both });
    expect(dropped.messages[1]).toEqual(wireAssistant(block.text('a')));
    expect(dropped.decisions.filter((decision) => decision.reason === 'fingerprint rejected')).toHaveLength(2);
    const one = buildAnthropicMessages(history, { ...direct, rejectedFingerprints: [both[0]!] });
    expect(one.messages[1]).toEqual(wireAssistant(block.thinking('p2', 'S2'), block.text('a')));
    const stripped = buildAnthropicMessages(history, { ...direct, stripAllThinking: true });
    expect(stripped.messages[1]).toEqual(wireAssistant(block.text('a')));
  });

  it('thinking disabled strips every thinking block (WIRE.md §2.6d)', () => {
    const result = buildAnthropicMessages(matrixHistory(origin), { ...direct, thinkingEnabled: false });
    expect(signedTurns(result.messages)).toBe('NONE');
    expect(result.system).toBe('You are terse.');
  });
});
