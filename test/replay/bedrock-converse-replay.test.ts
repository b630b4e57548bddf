import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import { resolveBedrockModelPolicy } from '../../src/replay/bedrock-converse-policy.js';
import type { BedrockReplayTarget } from '../../src/replay/bedrock-converse-replay.js';
import { bedrockIssuerMatches, replayBedrockAssistantTurn } from '../../src/replay/bedrock-converse-replay.js';
import { decision, toolCall } from '../support/messages.js';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const HOST = 'bedrock-runtime.us-east-1.amazonaws.com';
const claudeOrigin: OriginStamp = { api: 'bedrock_converse', provider: 'bedrock', host: HOST, model: CLAUDE };

const signedTurn: AssistantMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [toolCall('tooluse_1', 'read_file', '{"path":"a.txt"}')],
  reasoning: 'I will read it.',
  reasoning_content: 'I will read it.',
  reasoning_details: [
    { type: 'thinking', thinking: 'I will read it.', signature: 'SIG==' },
    { type: 'redacted_thinking', data: 'UkVEQUNURUQ=' },
  ],
  bedrock_content_blocks: [
    { reasoningContent: { reasoningText: { text: 'I will read it.', signature: 'SIG==' } } },
    { reasoningContent: { redactedContent: 'UkVEQUNURUQ=' } },
    { toolUse: { toolUseId: 'tooluse_1', name: 'read_file', input: { path: 'a.txt' } } },
  ],
  origin: claudeOrigin,
};

const SIGNED_WIRE = [
  { reasoningContent: { reasoningText: { text: 'I will read it.', signature: 'SIG==' } } },
  { reasoningContent: { redactedContent: 'UkVEQUNURUQ=' } },
  { toolUse: { toolUseId: 'tooluse_1', name: 'read_file', input: { path: 'a.txt' } } },
];
const TOOL_ONLY = [{ toolUse: { toolUseId: 'tooluse_1', name: 'read_file', input: { path: 'a.txt' } } }];

function replay(message: AssistantMessage, model: string, target: Partial<BedrockReplayTarget> = {}) {
  const fullTarget: BedrockReplayTarget = { model, host: HOST, reasoningEnabled: true, ...target };
  return replayBedrockAssistantTurn(message, 3, fullTarget, resolveBedrockModelPolicy(model));
}

function without<K extends keyof AssistantMessage>(message: AssistantMessage, key: K): AssistantMessage {
  const copy = structuredClone(message);
  delete copy[key];
  return copy;
}

describe('signed replay and origin scoping (SPEC §10, §23.2)', () => {
  it.each([
    ['same issuer: sidecar verbatim, redacted as a separate block', signedTurn, CLAUDE, {}, SIGNED_WIRE],
    [
      'sidecar gone: rebuilt from Anthropic-shaped reasoning_details',
      without(signedTurn, 'bedrock_content_blocks'),
      CLAUDE,
      {},
      SIGNED_WIRE,
    ],
    ['unstamped legacy row: replayed as SPEC §10', without(signedTurn, 'origin'), CLAUDE, {}, SIGNED_WIRE],
    [
      'another Claude model: signature bound to its model, dropped',
      signedTurn,
      'us.anthropic.claude-opus-4-6-v1',
      {},
      TOOL_ONLY,
    ],
    [
      'another region host: dropped',
      signedTurn,
      CLAUDE,
      { host: 'bedrock-runtime.eu-west-1.amazonaws.com' },
      TOOL_ONLY,
    ],
    ['thinking disabled for the request: dropped', signedTurn, CLAUDE, { reasoningEnabled: false }, TOOL_ONLY],
    [
      'signature invalidated flag: dropped',
      { ...signedTurn, _thinking_signature_invalidated: true },
      CLAUDE,
      {},
      TOOL_ONLY,
    ],
  ] as const)('%s', (_name, message, model, target, expected) => {
    expect(replay(message as AssistantMessage, model, target).content).toEqual(expected);
  });

  it('a Claude signature issued on Anthropic Messages is foreign on Converse', () => {
    const foreign = {
      ...signedTurn,
      origin: { ...claudeOrigin, api: 'anthropic_messages' as const, host: 'api.anthropic.com' },
    };
    const turn = replay(foreign, CLAUDE);
    expect(turn.content).toEqual(TOOL_ONLY);
    expect(turn.decisions).toEqual([
      decision(3, 'reasoningText', 'dropped', 'foreign origin: signature bound to another model or endpoint', 5),
      decision(3, 'redactedContent', 'dropped', 'foreign origin: signature bound to another model or endpoint', 12),
    ]);
    expect(
      bedrockIssuerMatches(foreign.origin, { model: CLAUDE, host: 'api.anthropic.com', reasoningEnabled: true }),
    ).toBe(false);
  });

  it('decisions for kept blocks carry sizes, never values', () => {
    expect(replay(signedTurn, CLAUDE).decisions).toEqual([
      { messageIndex: 3, field: 'reasoningText', action: 'kept', reason: 'signed route, same issuer', bytes: 5 },
      { messageIndex: 3, field: 'redactedContent', action: 'kept', reason: 'signed route, same issuer', bytes: 12 },
    ]);
  });

  it('legacy flat sidecar {text, signature, redactedContentBase64} (SPEC §10) replays in the wire shape', () => {
    const legacy: AssistantMessage = {
      ...signedTurn,
      bedrock_content_blocks: [
        { reasoningContent: { text: 'I will read it.', signature: 'SIG==' } },
        { reasoningContent: { redactedContentBase64: 'UkVEQUNURUQ=' } },
        { toolUse: { toolUseId: 'tooluse_1', name: 'read_file', input: { path: 'a.txt' } } },
      ],
    };
    expect(replay(legacy, CLAUDE).content).toEqual(SIGNED_WIRE);
  });

  it('unsigned reasoning (from Kimi) is never sent to Claude as reasoningContent', () => {
    const kimi: AssistantMessage = {
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'thinking about it',
      bedrock_content_blocks: [
        { reasoningContent: { reasoningText: { text: 'thinking about it' } } },
        { text: 'Checking.' },
      ],
      origin: { api: 'bedrock_converse', provider: 'bedrock', host: HOST, model: 'moonshot.kimi-k2-thinking' },
    };
    expect(replay(kimi, CLAUDE).content).toEqual([{ text: 'Checking.' }]);
  });
});

describe('unsigned and strip policies (WIRE.md §3.4)', () => {
  it('unsigned (Kimi): any readable reasoning, signed or foreign, travels as think-tag text in place; redacted dropped', () => {
    const turn = replay(signedTurn, 'moonshot.kimi-k2-thinking');
    expect(turn.content).toEqual([{ text: '<think>\nI will read it.\n</think>' }, ...TOOL_ONLY]);
    expect(turn.decisions.map((decision) => [decision.field, decision.action])).toEqual([
      ['reasoning_text', 'lifted'],
      ['redactedContent', 'dropped'],
    ]);
  });

  it('strip (DeepSeek R1): no reasoning at all', () => {
    expect(replay(signedTurn, 'us.deepseek.r1-v1:0').content).toEqual(TOOL_ONLY);
  });
});

describe('reasoning-only assistant turns follow the per-model shape rule (WIRE.md §3.4)', () => {
  const reasoningOnly: AssistantMessage = {
    role: 'assistant',
    content: '',
    reasoning_content: 'only thoughts',
    bedrock_content_blocks: [{ reasoningContent: { reasoningText: { text: 'only thoughts', signature: 'SIG2' } } }],
    origin: claudeOrigin,
  };
  it.each([
    [CLAUDE, [{ text: '(thinking elided)' }]],
    ['us.deepseek.r1-v1:0', [{ text: '(thinking elided)' }]],
    ['qwen.qwen3-32b-v1:0', [{ text: '<think>\nonly thoughts\n</think>' }]],
  ])('%s → %j', (model, expected) => {
    expect(replay(reasoningOnly, model).content).toEqual(expected);
  });

  it('a signed block kept then elided is reported as dropped, with the reason', () => {
    expect(replay(reasoningOnly, CLAUDE).decisions).toEqual([
      decision(3, 'reasoningText', 'dropped', 'reasoning-only turn (claude): the model rejects it as prefill', 4),
    ]);
  });
});

describe('tool uses are re-sourced from tool_calls', () => {
  it('cleaned names and edited arguments win over the sidecar; removed calls are not sent; input untouched', () => {
    const message: AssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('tooluse_x', 'json', '{"name":"Pizza"}')],
      bedrock_content_blocks: [
        { reasoningContent: { reasoningText: { text: 'call json' } } },
        { toolUse: { toolUseId: 'tooluse_x', name: 'json<|channel|>commentary', input: { name: 'Pizza', size: 'L' } } },
        { toolUse: { toolUseId: 'tooluse_gone', name: 'other', input: {} } },
      ],
    };
    const before = structuredClone(message);
    expect(replay(message, 'openai.gpt-oss-120b-1:0').content).toEqual([
      { text: '<think>\ncall json\n</think>' },
      { toolUse: { toolUseId: 'tooluse_x', name: 'json', input: { name: 'Pizza' } } },
    ]);
    expect(message).toEqual(before);
  });
});
