import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { planResponsesReplay, responsesIssuerKind } from '../../src/replay/responses-replay-policy.js';

/** SPEC §12 issuer kinds and §23.2 origin scoping, as a pure policy. */

describe('responsesIssuerKind (SPEC §12)', () => {
  const table: [provider: string, baseUrl: string | undefined, expected: string][] = [
    ['openai', 'https://api.openai.com/v1', 'other:https://api.openai.com/v1'],
    ['openai', 'https://api.openai.com/v1/', 'other:https://api.openai.com/v1'],
    ['xai', 'https://api.x.ai/v1', 'xai_responses'],
    ['copilot', 'https://api.githubcopilot.com', 'github_responses'],
    ['copilot', 'https://copilot-api.example-corp.ghe.com', 'github_responses'],
    ['custom', 'https://api.individual.githubcopilot.com', 'github_responses'],
    ['codex', 'https://chatgpt.com/backend-api/codex', 'codex_backend'],
    ['custom', 'https://chatgpt.com/other', 'other:https://chatgpt.com/other'],
    ['openrouter', 'https://openrouter.ai/api/v1', 'other:https://openrouter.ai/api/v1'],
    ['custom', 'https://api.x.ai.evil.example/v1', 'other:https://api.x.ai.evil.example/v1'],
    ['custom', undefined, 'other'],
    ['copilot', undefined, 'github_responses'],
  ];
  for (const [provider, baseUrl, expected] of table) {
    it(`${provider} ${baseUrl ?? '(no url)'} → ${expected}`, () => {
      expect(responsesIssuerKind(provider, baseUrl)).toBe(expected);
    });
  }
});

describe('planResponsesReplay origin scoping of unstamped items (SPEC §23.2)', () => {
  const item = { type: 'reasoning', id: 'rs_legacy', encrypted_content: 'ENC', summary: [] };
  const table: [name: string, message: Message, kept: boolean, reason: string][] = [
    [
      'no origin at all (legacy row)',
      { role: 'assistant', content: 'a', codex_reasoning_items: [item] },
      true,
      'unstamped legacy item',
    ],
    [
      'origin on the same wire API and host',
      {
        role: 'assistant',
        content: 'a',
        codex_reasoning_items: [item],
        origin: { api: 'codex_responses', provider: 'openai', host: 'api.openai.com', model: 'gpt-5' },
      },
      true,
      'unstamped legacy item',
    ],
    [
      'origin on another wire API',
      {
        role: 'assistant',
        content: 'a',
        codex_reasoning_items: [item],
        origin: { api: 'chat_completions', provider: 'openai', host: 'api.openai.com', model: 'gpt-5' },
      },
      false,
      'foreign origin chat_completions',
    ],
    [
      'origin on another host',
      {
        role: 'assistant',
        content: 'a',
        codex_reasoning_items: [item],
        origin: { api: 'codex_responses', provider: 'xai', host: 'api.x.ai', model: 'grok-4' },
      },
      false,
      'foreign origin host api.x.ai',
    ],
  ];
  for (const [name, message, kept, reason] of table) {
    it(name, () => {
      const plan = planResponsesReplay([message], {
        issuerKind: 'other:https://api.openai.com/v1',
        routeHost: 'api.openai.com',
        replayEncryptedReasoning: true,
      });
      expect(plan.decisions).toEqual([
        { messageIndex: 0, field: 'codex_reasoning_items[0]', action: kept ? 'kept' : 'dropped', reason, bytes: 3 },
      ]);
      expect(plan.messages.get(0)?.reasoningItems.length).toBe(kept ? 1 : 0);
    });
  }
});
