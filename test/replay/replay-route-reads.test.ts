import { describe, expect, it } from 'vitest';
import type { Route } from '../../src/core/route.js';
import { describeReasoningReads, routeReasoningReads } from '../../src/replay/replay-route-reads.js';
import { routeProfileFor } from '../../src/transports/transport-route-profile.js';

/** What each route gets back by design (SPEC §5, §7.4, §9.3, §10–§12), as `hermes model --json` and the probe read it. */

const reads = (route: Route, overrides: Parameters<typeof routeProfileFor>[1] = {}) =>
  routeReasoningReads(routeProfileFor(route, overrides));

describe('routeReasoningReads', () => {
  it('chat completions: the carrier row, must-echo, and the record fields of Copilot and Gemini', () => {
    expect(reads({ api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' })).toEqual({
      scope: 'all',
      carriers: ['reasoning_content'],
      mustEcho: 'deepseek',
    });
    expect(reads({ api: 'chat_completions', provider: 'mistral', model: 'magistral-medium-latest' })).toEqual({
      scope: 'none',
      carriers: [],
      mustEcho: null,
    });
    expect(reads({ api: 'chat_completions', provider: 'openrouter', model: 'openai/gpt-5' }).carriers).toEqual([
      'reasoning_content',
      'reasoning',
      'reasoning_details',
    ]);
    expect(reads({ api: 'chat_completions', provider: 'copilot', model: 'claude-sonnet-4.5' }).carriers).toContain(
      'reasoning_opaque',
    );
    expect(reads({ api: 'chat_completions', provider: 'gemini', model: 'gemini-3-pro-preview' }).carriers).toContain(
      'extra_content.google.thought_signature',
    );
  });

  it('a user route row decides the chat carriers', () => {
    const route: Route = { api: 'chat_completions', provider: 'custom', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' };
    expect(reads(route).scope).toBe('all');
    expect(reads(route, { overrides: [{ hosts: ['127.0.0.1'], carriers: [] }] }).scope).toBe('none');
  });

  it('native APIs: Claude thinking by model, Bedrock by family, Gemini signatures, Responses items', () => {
    expect(reads({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' })).toMatchObject({
      scope: 'all',
      carriers: ['thinking (signed)', 'redacted_thinking'],
    });
    expect(reads({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-sonnet-4-5' }).scope).toBe('loop');
    expect(reads({ api: 'bedrock_converse', provider: 'bedrock', model: 'us.deepseek.r1-v1:0' }).scope).toBe('none');
    expect(reads({ api: 'bedrock_converse', provider: 'bedrock', model: 'qwen.qwen3-32b-v1:0' }).carriers).toEqual([
      'reasoning as <think> text',
    ]);
    expect(reads({ api: 'gemini', provider: 'google', model: 'gemini-2.5-pro' }).carriers).toEqual([
      'thoughtSignature',
    ]);
    expect(reads({ api: 'codex_responses', provider: 'openai-responses', model: 'gpt-5' }).carriers).toEqual([
      'reasoning.encrypted_content',
    ]);
  });

  it('says it in words', () => {
    expect(describeReasoningReads({ scope: 'all', carriers: ['reasoning_content'], mustEcho: 'deepseek' })).toBe(
      'every earlier turn: reasoning_content (must echo: deepseek)',
    );
    expect(describeReasoningReads({ scope: 'loop', carriers: ['thinking'], mustEcho: null })).toBe(
      'the tool loop in flight only: thinking',
    );
    expect(describeReasoningReads({ scope: 'none', carriers: [], mustEcho: null })).toBe(
      'no earlier reasoning is sent back',
    );
  });
});
