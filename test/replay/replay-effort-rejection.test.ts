import { describe, expect, it } from 'vitest';
import type { ReasoningEffort } from '../../src/core/reasoning-options.js';
import {
  ANTHROPIC_ADAPTIVE_EFFORT,
  DEEPSEEK_EFFORT,
  GEMINI_BUDGET_EFFORT,
  GEMINI_LEVEL_EFFORT,
  KIMI_EFFORT,
  OPENAI_EFFORT,
  RESPONSES_EFFORT,
  THREE_LEVEL_EFFORT,
  type EffortVocabulary,
} from '../../src/providers/provider-effort.js';
import {
  effortRejection,
  looksLikeEffortRejection,
  nearestAcceptedEffort,
} from '../../src/replay/replay-effort-rejection.js';

/**
 * What an effort refusal teaches, for the provider error texts captured in public issues (the
 * texts of WIRE §6.1), and the level the one retry sends.
 */

interface Case {
  name: string;
  body: string;
  vocabulary: EffortVocabulary;
  sent: ReasoningEffort;
  refused: ReasoningEffort[];
  retry: ReasoningEffort | undefined;
}

const CASES: Case[] = [
  {
    name: 'OpenAI-style list of supported values (Kimi Code refusing none)',
    body: `{"error":{"message":"Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'.","type":"invalid_request_error"}}`,
    vocabulary: OPENAI_EFFORT,
    sent: 'none',
    refused: ['none', 'xhigh', 'max'],
    retry: 'minimal',
  },
  {
    name: 'Responses refusing xhigh, listing low, medium and high',
    body: `{"error":{"message":"Unsupported value: 'reasoning.effort' does not support 'xhigh' with this model. Supported values are: 'low', 'medium', and 'high'.","type":"invalid_request_error","param":"reasoning.effort","code":"unsupported_value"}}`,
    vocabulary: RESPONSES_EFFORT,
    sent: 'xhigh',
    refused: ['none', 'minimal', 'xhigh', 'max'],
    retry: 'high',
  },
  {
    name: 'Anthropic-compatible output_config.effort "expected …, but got xhigh"',
    body: 'The parameter `output_config.effort` specified in the request are not valid: expected `low`, `medium`, `high` or `max`, but got `xhigh` instead.',
    vocabulary: ANTHROPIC_ADAPTIVE_EFFORT,
    sent: 'xhigh',
    refused: ['xhigh'],
    retry: 'high',
  },
  {
    name: '"valid levels" list refusing max',
    body: 'Error: 400 level "max" not supported, valid levels: low, medium, high, xhigh',
    vocabulary: OPENAI_EFFORT,
    sent: 'max',
    refused: ['none', 'minimal', 'max'],
    retry: 'xhigh',
  },
  {
    name: 'a "use low, high or max" hint (the wording of a value list; three-level vocabulary refusing medium)',
    body: `{"error":{"message":"Invalid reasoning_effort 'medium': use low, high or max","type":"invalid_request_error"}}`,
    vocabulary: THREE_LEVEL_EFFORT,
    sent: 'medium',
    refused: ['medium'],
    retry: 'low',
  },
  {
    name: 'the parameter refused altogether (Groq/Cerebras non-reasoning model)',
    body: '400 reasoning_effort is not supported with this model',
    vocabulary: THREE_LEVEL_EFFORT,
    sent: 'high',
    refused: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
    retry: undefined,
  },
  {
    name: 'the parameter not enabled for the model',
    body: `{"error":{"message":"reasoning_effort is not enabled for this model","type":"invalid_request_error"}}`,
    vocabulary: OPENAI_EFFORT,
    sent: 'low',
    refused: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
    retry: undefined,
  },
  {
    name: 'Gemini 3 Pro refusing thinkingLevel MINIMAL (none and minimal send it)',
    body: '{"error":{"code":400,"message":"Thinking level MINIMAL is not supported for this model.","status":"INVALID_ARGUMENT"}}',
    vocabulary: GEMINI_LEVEL_EFFORT,
    sent: 'minimal',
    refused: ['none', 'minimal'],
    retry: 'low',
  },
  {
    name: 'Gemini 2.5 Pro refusing a zero budget: it only works in thinking mode',
    body: '{"error":{"code":400,"message":"Budget 0 is invalid. This model only works in thinking mode.","status":"INVALID_ARGUMENT"}}',
    vocabulary: GEMINI_BUDGET_EFFORT,
    sent: 'none',
    refused: ['none'],
    retry: 'minimal',
  },
  {
    name: 'Kimi K2.7 Code refusing the off switch',
    body: '{"error":{"type":"invalid_request_error","message":"invalid thinking: only type=enabled is allowed for this model"},"type":"error"}',
    vocabulary: KIMI_EFFORT,
    sent: 'none',
    refused: ['none'],
    retry: 'minimal',
  },
  {
    name: 'an always-thinking model refusing to disable thinking (Volcengine wording)',
    body: '{"error":{"code":"InvalidParameter","message":"The current model does not support disabling thinking","type":"BadRequest"}}',
    vocabulary: DEEPSEEK_EFFORT,
    sent: 'none',
    refused: ['none'],
    retry: 'minimal',
  },
];

describe('effort refusals (replay-effort-rejection.ts)', () => {
  it.each(CASES)('$name', ({ body, vocabulary, sent, refused, retry }) => {
    expect(looksLikeEffortRejection(body)).toBe(true);
    expect(effortRejection(body, sent, vocabulary.values)).toEqual(refused);
    expect(nearestAcceptedEffort(sent, refused)).toBe(retry);
  });

  it.each([
    [
      'a must-echo refusal naming reasoning_content',
      'The `reasoning_content` in the thinking mode must be passed back to the API.',
    ],
    ['a signature refusal', 'messages.1.content.0: Invalid `signature` in `thinking` block'],
    ['an unknown carrier field', 'Unrecognized request argument supplied: reasoning_details'],
    ['a rate limit', 'Rate limit reached: too many requests at high priority'],
  ])('is not an effort refusal: %s', (_name, body) => {
    expect(looksLikeEffortRejection(body)).toBe(false);
    expect(effortRejection(body, 'high', OPENAI_EFFORT.values)).toEqual([]);
  });

  it('an always-thinking refusal teaches nothing when the off switch was not what was sent', () => {
    const body = 'Budget 0 is invalid. This model only works in thinking mode.';
    expect(effortRejection(body, 'high', GEMINI_BUDGET_EFFORT.values)).toEqual([]);
  });

  it('the nearest level: ties go down, none only goes up, nothing left means no effort', () => {
    expect(nearestAcceptedEffort('high', [])).toBe('high');
    expect(nearestAcceptedEffort('xhigh', ['xhigh'])).toBe('high');
    expect(nearestAcceptedEffort('high', ['high', 'medium'])).toBe('xhigh');
    expect(nearestAcceptedEffort('none', ['none', 'minimal'])).toBe('low');
    expect(nearestAcceptedEffort('max', ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'])).toBeUndefined();
  });
});
