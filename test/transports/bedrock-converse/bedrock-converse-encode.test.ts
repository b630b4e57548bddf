import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import type { Message } from '../../../src/core/message.js';
import type { ReasoningEffort } from '../../../src/core/reasoning-options.js';
import type { ToolDefinition } from '../../../src/core/tool-definition.js';
import { decodeBedrockConverseResponse } from '../../../src/transports/bedrock-converse/bedrock-converse-decode.js';
import { prepareBedrockConverse } from '../../../src/transports/bedrock-converse/bedrock-converse-encode.js';
import type { BedrockConverseResponseBody } from '../../../src/transports/bedrock-converse/bedrock-converse-wire.js';
import { bedrockRoute, readCassette } from './bedrock-converse-fixtures.js';

/**
 * Encoder against recorded evidence (WIRE.md §3.1, §3.4): decode a cassette's turn-1 response,
 * append the recorded next user/tool turn, prepare — the messages must equal what the recorded
 * client sent on turn 2 (which Bedrock answered 200), except where our policy deliberately differs
 * (DeepSeek R1 `strip`).
 */

const BASE_URL = 'https://bedrock-runtime.us-east-1.amazonaws.com';

function modelOf(uri: string): string {
  return decodeURIComponent(uri.split('/model/')[1]?.split('/')[0] ?? '');
}

/** Canonical user/tool messages of recorded Converse user turns (assistant turns are skipped). */
function canonicalTurns(messages: { role: string; content: JsonObject[] }[]): Message[] {
  const history: Message[] = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    for (const block of message.content) {
      if (typeof block['text'] === 'string') history.push({ role: 'user', content: block['text'] });
      const result = block['toolResult'] as { toolUseId: string; content: { text: string }[] } | undefined;
      if (result)
        history.push({
          role: 'tool',
          tool_call_id: result.toolUseId,
          content: result.content.map((part) => part.text).join(''),
        });
    }
  }
  return history;
}

function toolsOf(body: JsonObject): ToolDefinition[] {
  const tools = ((body['toolConfig'] as JsonObject | undefined)?.['tools'] ?? []) as {
    toolSpec: { name: string; description?: string; inputSchema: { json: JsonObject } };
  }[];
  return tools.map(({ toolSpec }) => ({
    name: toolSpec.name,
    description: toolSpec.description ?? '',
    parameters: toolSpec.inputSchema.json,
  }));
}

function replayCassette(name: string, effort?: ReasoningEffort) {
  const [first, second] = readCassette(name);
  if (!first || !second) throw new Error(`${name} needs two interactions`);
  const model = modelOf(first.request.uri);
  const route = bedrockRoute(model, BASE_URL);
  const turn = decodeBedrockConverseResponse(first.response.body as BedrockConverseResponseBody, route);
  const firstMessages = first.request.body['messages'] as { role: string; content: JsonObject[] }[];
  const secondMessages = second.request.body['messages'] as { role: string; content: JsonObject[] }[];
  const system = ((first.request.body['system'] ?? []) as { text: string }[]).map((block): Message => ({
    role: 'system',
    content: block.text,
  }));
  const history: Message[] = [
    ...system,
    ...canonicalTurns(firstMessages),
    turn.message,
    ...canonicalTurns(secondMessages.slice(firstMessages.length + 1)),
  ];
  const hasThinking = first.request.body['additionalModelRequestFields'] !== undefined;
  const prepared = prepareBedrockConverse(
    {
      route,
      history,
      tools: toolsOf(second.request.body),
      reasoning: { enabled: hasThinking, ...(effort === undefined ? {} : { effort }) },
      stream: false,
    },
    { defaultRegion: 'us-east-1' },
  );
  return { prepared, recorded: second.request.body, model };
}

describe('replay equals the recorded accepted turn-2 request (WIRE.md §3.4 evidence)', () => {
  it.each([
    ['pydantic-anthropic-tool-with-thinking.cassette.json', undefined],
    ['pydantic-thinking-part-anthropic-adaptive.cassette.json', undefined],
    ['pydantic-thinking-part-redacted.cassette.json', undefined],
    ['pydantic-moonshotai-tool-call.cassette.json', undefined],
    ['pydantic-thinking-high-qwen-variant.cassette.json', 'high'],
  ] as const)('%s: messages, tools and additionalModelRequestFields', (name, effort) => {
    const { prepared, recorded, model } = replayCassette(name, effort);
    const body = prepared.body as JsonObject & { toolConfig?: { tools: unknown[] } };
    expect(body['messages']).toEqual(recorded['messages']);
    expect(body['additionalModelRequestFields']).toEqual(recorded['additionalModelRequestFields']);
    expect(body.toolConfig?.tools).toEqual((recorded['toolConfig'] as { tools: unknown[] } | undefined)?.tools);
    expect(prepared.url).toBe(`${BASE_URL}/model/${encodeURIComponent(model)}/converse`);
    expect(prepared.routeKey).toBe(`bedrock|bedrock-runtime.us-east-1.amazonaws.com|${model}`);
    expect(prepared.carriersSent).toEqual([]);
  });

  it('pydantic-thinking-part-deepseek: strip sends the recorded turn minus the think-tag reasoning', () => {
    const { prepared, recorded } = replayCassette('pydantic-thinking-part-deepseek.cassette.json');
    const expected = (recorded['messages'] as { role: string; content: JsonObject[] }[]).map((message) => ({
      ...message,
      content: message.content.filter(
        (block) => !(typeof block['text'] === 'string' && block['text'].startsWith('<think>')),
      ),
    }));
    expect(prepared.body['messages']).toEqual(expected);
    expect(prepared.body['additionalModelRequestFields']).toBeUndefined();
    expect(prepared.decisions).toEqual([
      expect.objectContaining({
        messageIndex: 1,
        field: 'reasoningText',
        action: 'dropped',
        reason: expect.stringMatching(/^strip policy \(deepseek\)/),
      }),
    ]);
  });
});

describe('request reasoning fields per model (WIRE.md §3.1)', () => {
  it.each([
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', {}, { thinking: { type: 'enabled', budget_tokens: 1024 } }],
    [
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
      { budgetTokens: 8000 },
      { thinking: { type: 'enabled', budget_tokens: 8000 } },
    ],
    ['us.anthropic.claude-sonnet-4-6', {}, { thinking: { type: 'adaptive' } }],
    ['global.anthropic.claude-opus-4-6-v1', {}, { thinking: { type: 'adaptive' } }],
    ['openai.gpt-oss-120b-1:0', { effort: 'high' }, { reasoning_effort: 'high' }],
    ['openai.gpt-oss-20b-1:0', {}, { reasoning_effort: 'medium' }],
    ['qwen.qwen3-32b-v1:0', { effort: 'high' }, { reasoning_config: 'high' }],
    ['us.deepseek.r1-v1:0', { effort: 'high' }, undefined],
    ['moonshot.kimi-k2-thinking', {}, undefined],
  ] as const)('%s %j → %j', (model, options, expected) => {
    const prepared = prepareBedrockConverse({
      route: bedrockRoute(model),
      history: [{ role: 'user', content: 'hi' }],
      tools: [],
      reasoning: { enabled: true, ...options },
    });
    expect(prepared.body['additionalModelRequestFields']).toEqual(expected);
    expect(prepared.url).toBe(
      `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(model)}/converse-stream`,
    );
  });

  it('budget_tokens stays below max_tokens, never under 1024; reasoning off sends nothing', () => {
    const make = (enabled: boolean, maxTokens: number, budgetTokens: number) =>
      prepareBedrockConverse({
        route: bedrockRoute('anthropic.claude-sonnet-4-5-20250929-v1:0'),
        history: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
        tools: [],
        reasoning: { enabled, budgetTokens },
        maxTokens,
      }).body;
    expect(make(true, 2000, 4000)).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 2000 },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1999 } },
    });
    expect(make(false, 2000, 4000)).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 2000 },
    });
  });
});
