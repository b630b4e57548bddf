import { describe, expect, it } from 'vitest';
import {
  BEDROCK_DEFAULT_POLICY,
  BEDROCK_MODEL_POLICIES,
  bedrockBaseModelId,
  resolveBedrockModelPolicy,
} from '../../src/replay/bedrock-converse-policy.js';
import {
  isBedrockRedactedRejection,
  stripBedrockRedactedReasoning,
} from '../../src/replay/bedrock-converse-self-heal.js';

describe('Bedrock per-model policy table (SPEC §10, WIRE.md §3.1/§3.4)', () => {
  /** The expected row fields: family, replay rule, request shape, reasoning-only turn rule. */
  const policy = (family: string, replay: string, request: object, reasoningOnlyTurn: string) => ({
    family,
    replay,
    request,
    reasoningOnlyTurn,
  });
  const CLAUDE = policy('claude', 'signed', { style: 'anthropic-thinking', mode: 'enabled' }, 'elide-placeholder');
  const ADAPTIVE = policy(
    'claude-adaptive',
    'signed',
    { style: 'anthropic-thinking', mode: 'adaptive' },
    'elide-placeholder',
  );
  const rows: [string, ReturnType<typeof policy>][] = [
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', CLAUDE],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', CLAUDE],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', CLAUDE],
    ['anthropic.claude-haiku-4-5-20251001-v1:0', CLAUDE],
    ['us.anthropic.claude-sonnet-4-6', ADAPTIVE],
    ['us.anthropic.claude-opus-4-6-v1', ADAPTIVE],
    ['anthropic.claude-sonnet-5', ADAPTIVE],
    ['arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-6', ADAPTIVE],
    ['us.deepseek.r1-v1:0', policy('deepseek', 'strip', { style: 'none' }, 'elide-placeholder')],
    ['moonshot.kimi-k2-thinking', policy('kimi', 'unsigned', { style: 'none' }, 'think-text')],
    ['qwen.qwen3-32b-v1:0', policy('qwen', 'unsigned', { style: 'reasoning-config' }, 'think-text')],
    ['openai.gpt-oss-120b-1:0', policy('gpt-oss', 'unsigned', { style: 'reasoning-effort' }, 'think-text')],
    ['minimax.minimax-m2', policy('minimax', 'unsigned', { style: 'none' }, 'think-text')],
    ['amazon.nova-pro-v1:0', policy('default', 'strip', { style: 'none' }, 'elide-placeholder')],
  ];
  it.each(rows.map(([model, expected]) => [model, expected.family, expected.replay, expected] as const))(
    '%s → %s / %s',
    (model, _family, _replay, expected) => {
      const row = resolveBedrockModelPolicy(model);
      expect({
        family: row.family,
        replay: row.replay,
        request: row.request,
        reasoningOnlyTurn: row.reasoningOnlyTurn,
      }).toEqual(expected);
    },
  );

  it('every row cites its evidence', () => {
    for (const row of [...BEDROCK_MODEL_POLICIES, BEDROCK_DEFAULT_POLICY])
      expect(row.evidence.length).toBeGreaterThan(20);
  });

  it('base model id drops the ARN path and cross-region prefix', () => {
    expect(bedrockBaseModelId('eu.anthropic.claude-sonnet-4-6')).toBe('anthropic.claude-sonnet-4-6');
    expect(bedrockBaseModelId('arn:aws:bedrock:us-west-2::foundation-model/deepseek.r1-v1:0')).toBe('deepseek.r1-v1:0');
  });
});

describe('redacted-content self-heal (SPEC §10)', () => {
  it.each([
    ['ValidationException', 'messages.1.content.0: Invalid `data` in `redacted_thinking` block', true],
    ['ValidationException', 'The encrypted content could not be decrypted', true],
    ['ValidationException', 'messages.1.content.0: Invalid `signature` in `thinking` block', false],
    ['ThrottlingException', 'redacted', false],
  ] as const)('%s "%s" → %s', (type, message, expected) => {
    expect(isBedrockRedactedRejection(type, message)).toBe(expected);
  });

  it('drops redacted blocks, drops turns left empty, merges the user turns that meet, leaves the input alone', () => {
    const body = {
      messages: [
        { role: 'user', content: [{ text: 'first' }] },
        { role: 'assistant', content: [{ reasoningContent: { redactedContent: 'AAAA' } }] },
        { role: 'user', content: [{ text: 'second' }] },
        { role: 'assistant', content: [{ reasoningContent: { redactedContent: 'BBBB' } }, { text: 'answer' }] },
        { role: 'user', content: [{ text: 'third' }] },
      ],
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
    };
    const before = structuredClone(body);
    const healed = stripBedrockRedactedReasoning(body);
    expect(healed).toEqual({
      body: {
        messages: [
          { role: 'user', content: [{ text: 'first' }, { text: 'second' }] },
          { role: 'assistant', content: [{ text: 'answer' }] },
          { role: 'user', content: [{ text: 'third' }] },
        ],
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
      },
      removedBlocks: 2,
      droppedTurns: 1,
    });
    expect(body).toEqual(before);
  });
});
