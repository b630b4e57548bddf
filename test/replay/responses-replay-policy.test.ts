import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { Message } from '../../src/core/message.js';
import { hostnameOf } from '../../src/replay/replay-host.js';
import { planResponsesReplay, responsesIssuerKind } from '../../src/replay/responses-replay-policy.js';

/** SPEC §12 issuer kinds, §23.2 origin scoping and the §24.4/§24.5 wire shape, as a pure policy. */

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

describe('planResponsesReplay reasoning wire shape (SPEC §24.4)', () => {
  it('a stored item with output-only keys travels with input-schema keys only', () => {
    const stored = {
      type: 'reasoning',
      id: 'rs_out',
      status: 'completed',
      response_id: 'resp_1',
      encrypted_content: 'ENC',
      summary: [{ type: 'summary_text', text: 's' }],
      content: [{ type: 'reasoning_text', text: 'raw' }],
      _issuer_kind: 'other:https://api.openai.com/v1',
      _precedes_call_id: 'call_1',
      _anything: true,
    };
    const plan = planResponsesReplay([{ role: 'assistant', content: 'a', codex_reasoning_items: [stored] }], {
      issuerKind: 'other:https://api.openai.com/v1',
      routeHost: 'api.openai.com',
      replayEncryptedReasoning: true,
    });
    expect(plan.messages.get(0)?.reasoningItems).toEqual([
      {
        item: {
          type: 'reasoning',
          encrypted_content: 'ENC',
          summary: [{ type: 'summary_text', text: 's' }],
          content: [{ type: 'reasoning_text', text: 'raw' }],
        },
        precedesCallId: 'call_1',
      },
    ]);
  });
});

describe('planResponsesReplay keeps rs_ ids on Azure OpenAI / Foundry (SPEC §24.5)', () => {
  const item = (id: string, issuer: string | undefined) => ({
    type: 'reasoning',
    id,
    status: 'completed',
    encrypted_content: 'ENC',
    summary: [],
    ...(issuer === undefined ? {} : { _issuer_kind: issuer }),
  });
  const plan = (baseUrl: string, stored: JsonObject) => {
    const issuerKind = responsesIssuerKind('custom', baseUrl);
    const result = planResponsesReplay([{ role: 'assistant', content: 'a', codex_reasoning_items: [stored] }], {
      issuerKind,
      routeHost: hostnameOf(baseUrl),
      replayEncryptedReasoning: true,
    });
    return { item: result.messages.get(0)?.reasoningItems[0]?.item, decision: result.decisions[0] };
  };
  const azureHosts = [
    'https://my-resource.openai.azure.com/openai/v1',
    'https://my-project.services.ai.azure.com/api/projects/p/openai',
    'https://my-resource.cognitiveservices.azure.com/openai/v1',
  ];
  for (const baseUrl of azureHosts) {
    it(`same issuer on ${hostnameOf(baseUrl)}: the rs_ id travels, status does not`, () => {
      const { item: wire, decision } = plan(baseUrl, item('rs_az', responsesIssuerKind('custom', baseUrl)));
      expect(wire).toEqual({ type: 'reasoning', id: 'rs_az', encrypted_content: 'ENC', summary: [] });
      expect(decision).toEqual({
        messageIndex: 0,
        field: 'codex_reasoning_items[0]',
        action: 'kept',
        reason: 'same issuer, rs_ id kept (Azure resolves it)',
        bytes: 3,
      });
    });
  }
  const dropped: [name: string, baseUrl: string, stored: JsonObject, reason: string][] = [
    [
      'api.openai.com (store:false cannot resolve ids)',
      'https://api.openai.com/v1',
      item('rs_o', 'other:https://api.openai.com/v1'),
      'same issuer',
    ],
    [
      'a look-alike host',
      'https://openai.azure.com.evil.example/v1',
      item('rs_e', 'other:https://openai.azure.com.evil.example/v1'),
      'same issuer',
    ],
    [
      'an unstamped legacy item on Azure',
      'https://r.openai.azure.com/openai/v1',
      item('rs_l', undefined),
      'unstamped legacy item',
    ],
    [
      'a non-rs_ id on Azure',
      'https://r.openai.azure.com/openai/v1',
      item('e15cb316-uuid', 'other:https://r.openai.azure.com/openai/v1'),
      'same issuer',
    ],
  ];
  for (const [name, baseUrl, stored, reason] of dropped) {
    it(`id dropped: ${name}`, () => {
      const { item: wire, decision } = plan(baseUrl, stored);
      expect(wire).toEqual({ type: 'reasoning', encrypted_content: 'ENC', summary: [] });
      expect(decision?.reason).toBe(reason);
    });
  }
  it('another Azure resource is another issuer: the item is dropped, id and all', () => {
    const { item: wire, decision } = plan(
      'https://two.openai.azure.com/openai/v1',
      item('rs_one', 'other:https://one.openai.azure.com/openai/v1'),
    );
    expect(wire).toBeUndefined();
    expect(decision?.action).toBe('dropped');
  });
});
