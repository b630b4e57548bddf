import { describe, expect, it } from 'vitest';
import type { Route } from '../../src/core/route.js';
import { NOTHING_LEARNED, resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { routeProfileFor } from '../../src/transports/transport-route-profile.js';

/** The one route resolver: every fact a request needs, from the route plus the user's rows. */

describe('resolveRouteProfile: route key and base URL (SPEC §3.1, §3.3)', () => {
  it('the provider default stands in for a missing base URL: key, table row and must-echo use its host', () => {
    const profile = routeProfileFor({ api: 'chat_completions', provider: 'DeepSeek ', model: 'deepseek-v4' });
    expect(profile.baseUrl).toBe('https://api.deepseek.com');
    expect(profile.routeKey).toBe('deepseek|api.deepseek.com|deepseek-v4');
    expect(profile.key).toEqual({ provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4' });
    expect(profile.mustEchoFamily).toBe('deepseek');
    expect(profile.pad).toBe(true);
    // The origin stamp keeps the route's own (empty) host, as stored messages always have.
    expect(profile.origin).toEqual({ api: 'chat_completions', provider: 'deepseek', host: '', model: 'deepseek-v4' });
  });

  it('the route base URL wins, trimmed and without trailing slashes', () => {
    const profile = routeProfileFor({
      api: 'chat_completions',
      provider: 'openrouter',
      model: 'x/y',
      baseUrl: ' https://openrouter.ai/api/v1// ',
    });
    expect(profile.baseUrl).toBe('https://openrouter.ai/api/v1');
    expect(profile.routeKey).toBe('openrouter|openrouter.ai|x/y');
    expect(profile.origin.host).toBe('openrouter.ai');
  });

  it('native APIs classify the route as given: no default host in the key', () => {
    const profile = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' });
    expect(profile.baseUrl).toBeUndefined();
    expect(profile.routeKey).toBe('anthropic||claude-opus-4-8');
  });
});

describe('resolveRouteProfile: chat-completions tables (SPEC §4–§8, §23.4)', () => {
  it('a strict route reads nothing and charges no stale thinking (SPEC §5 row 1, §14)', () => {
    const profile = routeProfileFor({ api: 'chat_completions', provider: 'mistral', model: 'magistral-medium' });
    expect(profile.chat.row).toBe('strict');
    expect(profile.chat.carriers).toEqual([]);
    expect(profile.chargeStaleThinking).toBe(false);
  });

  it('keep-thinking flags and record reads come with the profile (SPEC §7.4, §8)', () => {
    const glm = routeProfileFor({ api: 'chat_completions', provider: 'zai', model: 'glm-4.7' });
    expect(glm.chat.keepThinking).toEqual({ thinking: { type: 'enabled', clear_thinking: false } });
    const gemini = routeProfileFor({ api: 'chat_completions', provider: 'gemini', model: 'gemini-3-pro-preview' });
    expect(gemini.chat.recordReads).toEqual({ extraContent: true, copilot: false });
    expect(gemini.chat.consumesThoughtSignature).toBe(true);
    const copilot = routeProfileFor({ api: 'chat_completions', provider: 'copilot', model: 'claude-sonnet-4.5' });
    expect(copilot.chat.recordReads).toEqual({ extraContent: false, copilot: true });
  });

  it('a user route row decides carriers, must-echo and keep-thinking before the built-in tables (SPEC §23.4)', () => {
    const route: Route = { api: 'chat_completions', provider: 'acme', model: 'm', baseUrl: 'https://llm.acme.test/v1' };
    const profile = resolveRouteProfile(route, [
      { hosts: ['acme.test'], carriers: ['reasoning', 'reasoning_content'], mustEcho: true, keepThinking: { k: 1 } },
    ]);
    expect(profile.chat.row).toBe('override');
    expect(profile.chat.carriers).toEqual(['reasoning_content', 'reasoning']);
    expect(profile.mustEchoFamily).toBe('override');
    expect(profile.chat.keepThinking).toEqual({ k: 1 });
  });

  it('the echo opt-in pads a route outside the must-echo tier (SPEC §4)', () => {
    const route: Route = { api: 'chat_completions', provider: 'openrouter', model: 'x/y' };
    expect(routeProfileFor(route).pad).toBe(false);
    const profile = routeProfileFor(route, { echoOptIn: true });
    expect([profile.pad, profile.echoOptIn, profile.mustEchoFamily]).toEqual([true, true, null]);
  });
});

describe('resolveRouteProfile: native wire APIs (SPEC §9–§12)', () => {
  it('Anthropic: treatment, platform, scope and model policy', () => {
    const profile = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' });
    expect(profile.anthropic).toEqual({
      treatment: 'native',
      platform: 'direct',
      endpointClass: 'direct',
      signedReplay: true,
      thinkingScope: 'all',
      adaptiveThinking: true,
      interleavedThinkingBeta: false,
      adaptiveOrDisabledThinking: false,
      prefixChecked: false,
      bindingControls: false,
      onDemandCompaction: false,
    });
    expect(profile.chargeStaleThinking).toBe(true);
  });

  it('Anthropic: thinking-block binding (SPEC §26.4): checked on every platform, declared on the direct API only', () => {
    const direct = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-fable-5-1' });
    expect([direct.anthropic.prefixChecked, direct.anthropic.bindingControls]).toEqual([true, true]);
    const bedrock = routeProfileFor({
      api: 'anthropic_messages',
      provider: 'bedrock',
      model: 'us.anthropic.claude-fable-5-1',
      baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    });
    expect([bedrock.anthropic.prefixChecked, bedrock.anthropic.bindingControls]).toEqual([true, false]);
    // Mythos 5.1 records the binding but runs no prefix check; it does take the control.
    const mythos = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-mythos-5-1' });
    expect([mythos.anthropic.prefixChecked, mythos.anthropic.bindingControls]).toEqual([false, true]);
    const older = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-5' });
    expect([older.anthropic.prefixChecked, older.anthropic.bindingControls]).toEqual([false, false]);
  });

  it('Anthropic: on-demand compaction (SPEC §26.4) on bound models Anthropic lists, on the direct API only', () => {
    const direct = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-5-5' });
    expect(direct.anthropic.onDemandCompaction).toBe(true);
    const bedrock = routeProfileFor({
      api: 'anthropic_messages',
      provider: 'bedrock',
      model: 'us.anthropic.claude-opus-5-5',
      baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    });
    expect(bedrock.anthropic.onDemandCompaction).toBe(false);
    // Listed for compaction, but its thinking is not bound: Hermes summarises as before.
    const unbound = routeProfileFor({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-6' });
    expect(unbound.anthropic.onDemandCompaction).toBe(false);
  });

  it('Anthropic: the NOUS_INFERENCE_BASE_URL host is native (SPEC §9.2)', () => {
    const route: Route = {
      api: 'anthropic_messages',
      provider: 'nous',
      model: 'claude-opus-4-8',
      baseUrl: 'https://nous.internal.example/v1',
    };
    expect(routeProfileFor(route).anthropic.treatment).toBe('third_party');
    const profile = routeProfileFor(route, { nousInferenceBaseUrl: 'https://nous.internal.example' });
    expect(profile.anthropic.treatment).toBe('native');
  });

  it('Bedrock policy row, Gemini facts and Responses issuer', () => {
    const bedrock = routeProfileFor({ api: 'bedrock_converse', provider: 'bedrock', model: 'us.qwen.qwen3-32b-v1:0' });
    expect(bedrock.bedrock.family).toBe('qwen');
    const gemini = routeProfileFor({ api: 'gemini', provider: 'google', model: 'models/gemini-3-pro-preview' });
    expect([gemini.gemini.family, gemini.gemini.issuer, gemini.gemini.sendsFunctionCallIds]).toEqual([
      'gemini-3.0',
      'ai-studio',
      true,
    ]);
    const xai = routeProfileFor({ api: 'codex_responses', provider: 'xai', model: 'grok-4' });
    expect([xai.baseUrl, xai.responses.issuerKind]).toEqual(['https://api.x.ai/v1', 'xai_responses']);
  });
});

describe('the profile is data', () => {
  it('survives a structured clone unchanged, so it can be logged, compared and reused per turn', () => {
    const profile = routeProfileFor({ api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4' });
    expect(structuredClone(profile)).toEqual(profile);
    expect(NOTHING_LEARNED).toEqual({
      rejectedCarriers: [],
      rejectedThinkingFingerprints: [],
      replayEncryptedReasoning: true,
    });
  });
});
