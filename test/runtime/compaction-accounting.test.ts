import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { estimateRequestTokens, estimateTextTokens } from '../../src/replay/replay-token-estimate.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { messageCosts, planCompaction } from '../../src/runtime/compaction-plan.js';
import { routeTo } from '../support/messages.js';

/**
 * SPEC §14–§15 accounting as compaction sees it: which routes charge old thinking (the Anthropic
 * projection included), that preflight, tail walk and plan move together, that a provider usage
 * anchor overrides the estimate, and that opaque bytes never count on any route.
 */

/** An Anthropic Messages route. */
const anthropic = (provider: string, model: string, baseUrl?: string) =>
  routeTo('anthropic_messages', provider, model, baseUrl);
const NOUS_HOST = 'https://inference-api.nousresearch.com/v1';
const NOUS_ENV_HOST = 'https://nous.example.net/v1';

/** Name, route, whether old thinking is charged, and NOUS_INFERENCE_BASE_URL when set. */
const staleThinkingRoutes: [string, Route, boolean, string?][] = [
  // SPEC §9.1: opus ≥ 4.5 preserves prior thinking; on its own API (native, §9.2) it travels.
  ['Anthropic direct, claude-opus-4-8', anthropic('anthropic', 'claude-opus-4-8'), true],
  // sonnet 4.5 keeps only the in-flight loop's thinking: older turns are not sent.
  ['Anthropic direct, claude-sonnet-4-5', anthropic('anthropic', 'claude-sonnet-4-5'), false],
  ['Nous inference host (native)', anthropic('nous', 'claude-opus-4-8', NOUS_HOST), true],
  ['NOUS_INFERENCE_BASE_URL host (native)', anthropic('nous', 'claude-opus-4-8', NOUS_ENV_HOST), true, NOUS_ENV_HOST],
  [
    'OpenRouter Anthropic-compatible (third party)',
    anthropic('openrouter', 'anthropic/claude-opus-4-8', 'https://openrouter.ai/api'),
    false,
  ],
  ['MiniMax Anthropic endpoint', anthropic('minimax', 'MiniMax-M2', 'https://api.minimax.io/anthropic'), true],
  ['Responses', routeTo('codex_responses', 'openai', 'gpt-5.4'), false],
  ['DeepSeek chat (RC)', routeTo('chat_completions', 'deepseek', 'deepseek-v4-flash'), true],
  ['Mistral (strict, nothing)', routeTo('chat_completions', 'mistral', 'magistral'), false],
];

describe('stale thinking charged per route (SPEC §14, §9.1–§9.2)', () => {
  it.each(staleThinkingRoutes)('%s', (_name, route, expected, nousEnv) => {
    expect(resolveRouteProfile(route, [], { nousInferenceBaseUrl: nousEnv }).chargeStaleThinking).toBe(expected);
  });
});

const OLD_THINKING = 'I weighed three options and chose the second because it keeps the tests green. '.repeat(20);

/** Two Anthropic turns: the older one carries readable thinking plus signed and redacted blocks. */
function anthropicHistory(): Message[] {
  return [
    { role: 'user', content: 'plan the refactor' },
    {
      role: 'assistant',
      content: 'Here is the plan.',
      reasoning: OLD_THINKING,
      anthropic_content_blocks: [
        { type: 'thinking', thinking: OLD_THINKING, signature: 'S'.repeat(4000) },
        { type: 'redacted_thinking', data: 'R'.repeat(6000) },
        { type: 'text', text: 'Here is the plan.' },
      ],
    },
    { role: 'user', content: 'go on' },
    { role: 'assistant', content: 'Done.', reasoning: 'short' },
    { role: 'user', content: 'next' },
  ];
}

describe('Anthropic accounting projection (SPEC §15)', () => {
  const native = routeTo('anthropic_messages', 'anthropic', 'claude-opus-4-8');
  const thirdParty = routeTo(
    'anthropic_messages',
    'openrouter',
    'anthropic/claude-opus-4-8',
    'https://openrouter.ai/api',
  );

  it('prior thinking is charged ×1 on the native route and ×0 on OpenRouter-Anthropic; preflight, tail walk and plan move by the same amount', () => {
    const history = anthropicHistory();
    const settings = { contextWindow: 100_000, threshold: 0.8, keepTurns: 1 };
    const measure = (route: Route) => {
      const charge = resolveRouteProfile(route).chargeStaleThinking;
      const tail = messageCosts(history, charge).reduce((total, cost) => total + cost, 0);
      return {
        preflight: estimateRequestTokens(history, { chargeStaleThinking: charge }),
        tail,
        plan: planCompaction(history, settings, charge).estimate,
      };
    };
    const onNative = measure(native);
    const onThirdParty = measure(thirdParty);
    const thinking = estimateTextTokens(OLD_THINKING);
    expect(onNative.preflight - onThirdParty.preflight).toBe(thinking);
    expect(onNative.tail - onThirdParty.tail).toBe(thinking);
    expect(onNative.plan - onThirdParty.plan).toBe(thinking);
    expect(onNative.preflight).toBe(onNative.tail);
    expect(onThirdParty.preflight).toBe(onThirdParty.tail);
  });

  it('a provider usage anchor overrides the rough estimate of everything up to it, on every route', () => {
    const history = anthropicHistory();
    const anchored = history.map((message, index) =>
      index === 3 ? ({ ...message, _usage: { input_tokens: 5000, output_tokens: 70 } } as AssistantMessage) : message,
    );
    for (const route of [native, thirdParty]) {
      const charge = resolveRouteProfile(route).chargeStaleThinking;
      const costs = messageCosts(anchored, charge);
      const plan = planCompaction(anchored, { contextWindow: 6000, threshold: 0.8, keepTurns: 1 }, charge);
      // Anchor (prompt + completion of message 3) plus the rough cost of the one message after it.
      expect(plan.estimate).toBe(5000 + 70 + (costs[4] ?? 0));
      expect(plan.roughEstimate).toBe(costs.reduce((total, cost) => total + cost, 0));
      expect(plan.shouldCompact).toBe(true);
    }
  });
});

/** Every opaque carrier kind, with payload sizes chosen by `size`. */
function opaqueHeavyHistory(size: number): Message[] {
  const blob = (letter: string) => letter.repeat(size);
  return [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'read a.txt' },
    {
      role: 'assistant',
      content: null,
      reasoning_content: 'I should read it.',
      reasoning_details: [
        { type: 'reasoning.text', text: 'I should read it.', signature: blob('s'), format: 'anthropic-claude-v1' },
        { type: 'reasoning.encrypted', data: blob('e'), id: 'rs_1', format: 'openai-responses-v1' },
        {
          type: 'hermes.native_assistant',
          reasoning_opaque: blob('o'),
          extra_content: { google: { thought_signature: blob('g') } },
        },
      ],
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"a.txt"}', thought_signature: blob('t') },
          extra_content: { google: { thought_signature: blob('x') } },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'alpha' },
    {
      role: 'assistant',
      content: 'It says alpha.',
      reasoning: 'Summarising.',
      anthropic_content_blocks: [
        { type: 'thinking', thinking: 'Summarising.', signature: blob('a') },
        { type: 'redacted_thinking', data: blob('r') },
      ],
      bedrock_content_blocks: [
        { reasoningContent: { reasoningText: { text: 'Summarising.', signature: blob('b') } } },
        { reasoningContent: { redactedContent: blob('d') } },
      ],
      codex_reasoning_items: [
        {
          type: 'reasoning',
          id: 'rs_2',
          encrypted_content: blob('c'),
          summary: [{ type: 'summary_text', text: 'Summarising.' }],
        },
        { type: 'compaction', encrypted_content: blob('k') },
      ],
      gemini_content_parts: [{ text: 'It says alpha.', thoughtSignature: blob('m') }],
    } as AssistantMessage,
    { role: 'user', content: 'thanks' },
  ] as Message[];
}

const everyRouteClass: [string, Route][] = [
  ['openrouter (full carriers)', { api: 'chat_completions', provider: 'openrouter', model: 'a/b' }],
  ['deepseek (must-echo)', { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' }],
  ['mistral (strict)', { api: 'chat_completions', provider: 'mistral', model: 'magistral' }],
  [
    'copilot',
    {
      api: 'chat_completions',
      provider: 'copilot',
      model: 'claude-sonnet-4.5',
      baseUrl: 'https://api.githubcopilot.com',
    },
  ],
  ['anthropic native', { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' }],
  [
    'bedrock converse',
    { api: 'bedrock_converse', provider: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
  ],
  ['gemini native', { api: 'gemini', provider: 'google', model: 'gemini-3-pro-preview' }],
  ['responses', { api: 'codex_responses', provider: 'openai', model: 'gpt-5.4' }],
];

describe('opaque bytes never count (SPEC §15, §21.6)', () => {
  it.each(everyRouteClass)(
    '%s: growing every opaque payload 1 → 200,000 bytes changes no cost and no cut',
    (_name, route) => {
      const charge = resolveRouteProfile(route).chargeStaleThinking;
      const settings = { contextWindow: 400, threshold: 0.8, keepTurns: 1 };
      const small = opaqueHeavyHistory(1);
      const huge = opaqueHeavyHistory(200_000);
      expect(messageCosts(huge, charge)).toEqual(messageCosts(small, charge));
      expect(planCompaction(huge, settings, charge)).toEqual(planCompaction(small, settings, charge));
      expect(planCompaction(huge, settings, charge).shouldCompact).toBe(false);
    },
  );

  it('the readable text beside the blobs does count (the property above is not vacuous)', () => {
    const history = opaqueHeavyHistory(1);
    const longer = history.map((message): Message =>
      message.role === 'assistant' && message.reasoning === 'Summarising.'
        ? { ...message, reasoning: 'Summarising. '.repeat(400) }
        : message,
    );
    const charge = true;
    const before = messageCosts(history, charge).reduce((total, cost) => total + cost, 0);
    const after = messageCosts(longer, charge).reduce((total, cost) => total + cost, 0);
    expect(after - before).toBe(estimateTextTokens('Summarising. '.repeat(400)) - estimateTextTokens('Summarising.'));
  });
});
