import { readFixtureJson } from '../support/fixtures.js';
import { describe, expect, test } from 'vitest';
import { CARRIER_ROUTE_ROWS, resolveCarrierRoute, routeCarriers } from '../../src/replay/replay-carrier-routes.js';
import type { Carrier } from '../../src/replay/replay-types.js';

const RC: Carrier = 'reasoning_content';
const R: Carrier = 'reasoning';
const RD: Carrier = 'reasoning_details';

describe('SPEC §5 carrier route table, by provider id', () => {
  const rows: [string, Carrier[]][] = [
    ['mistral', []],
    ['groq', []],
    ['sambanova', []],
    ['cerebras', [R]],
    ['fireworks', [RC]],
    ['openrouter', [RC, R, RD]],
    ['kilocode', [RC, R, RD]],
    ['ai-gateway', [RC, R, RD]],
    ['nous', [RC, R, RD]],
    ['novita', [RC, RD]],
    ['tencent-tokenhub', [RC, RD]],
    ['minimax', [RC, RD]],
    ['minimax-cn', [RC, RD]],
    ['ollama-cloud', [RC, R]],
    ['custom', [RC, R]],
    ['lmstudio', [RC, R]],
    ['upstage', [RC, R]],
    ['zai', [RC]],
    ['openai-api', [RC]],
    ['deepseek', [RC]],
    [' OpenRouter ', [RC, R, RD]],
  ];
  test.each(rows)('%s → %j', (provider, carriers) => {
    expect(routeCarriers(provider, undefined)).toEqual(carriers);
  });
});

describe('SPEC §5 carrier route table, by host (provider "acme")', () => {
  const rows: [string, Carrier[]][] = [
    ['https://api.mistral.ai/v1', []],
    ['https://api.groq.com/openai/v1', []],
    ['https://api.sambanova.ai/v1', []],
    ['https://hunyuan.cloud.tencent.com/v1', []],
    ['https://api.cerebras.ai/v1', [R]],
    ['https://api.fireworks.ai/inference/v1', [RC]],
    ['https://openrouter.ai/api/v1', [RC, R, RD]],
    ['https://api.kilo.ai/api/openrouter', [RC, R, RD]],
    ['https://ai-gateway.vercel.sh/v1', [RC, R, RD]],
    ['https://inference-api.nousresearch.com/v1', [RC, R, RD]],
    ['https://api.novita.ai/v3/openai', [RC, RD]],
    ['https://tokenhub.tencentmaas.com/v1', [RC, RD]],
    ['https://tokenhub-intl.tencentcloudmaas.com/v1', [RC, RD]],
    ['https://api.minimax.io/v1', [RC, RD]],
    ['https://api.minimaxi.com/v1', [RC, RD]],
    ['https://ollama.com/v1', [RC, R]],
    ['https://api.upstage.ai/v1', [RC, R]],
    // fallback: local → RC + R; remote → RC
    ['http://127.0.0.1:8080/v1', [RC, R]],
    ['http://localhost:11434/v1', [RC, R]],
    ['https://api.openai.com/v1', [RC]],
    // look-alike hosts and paths never match (SPEC §3.1)
    ['https://evil.example/openrouter.ai', [RC]],
    ['https://openrouter.ai.evil.example/api/v1', [RC]],
    ['https://notmistral.ai/v1', [RC]],
  ];
  test.each(rows)('%s → %j', (baseUrl, carriers) => {
    expect(routeCarriers('acme', baseUrl)).toEqual(carriers);
  });
});

describe('SPEC §5 consequences and post-step', () => {
  test('custom provider on a local URL → RC + R (row 5 by provider)', () => {
    expect(resolveCarrierRoute('custom', 'http://127.0.0.1:8080/v1')).toEqual({
      carriers: [RC, R],
      row: 'content-and-reasoning',
    });
  });

  test('groq reached as custom with its host → strict row wins before row 5', () => {
    expect(resolveCarrierRoute('custom', 'https://api.groq.com/openai/v1')).toEqual({ carriers: [], row: 'strict' });
  });

  test('cerebras reached as custom with its host → the cerebras row wins before row 5', () => {
    expect(routeCarriers('custom', 'https://api.cerebras.ai/v1')).toEqual([R]);
  });

  test('post-step adds reasoning_details when the profile declares a native type', () => {
    expect(routeCarriers('zai', undefined, { profileNativeReasoningDetailsType: 'zai.native_assistant' })).toEqual([
      RC,
      RD,
    ]);
    expect(routeCarriers('openrouter', undefined, { profileNativeReasoningDetailsType: 'x.native_assistant' })).toEqual(
      [RC, R, RD],
    );
  });

  test('post-step never adds to an empty (strict) set', () => {
    expect(routeCarriers('mistral', undefined, { profileNativeReasoningDetailsType: 'x.native_assistant' })).toEqual(
      [],
    );
  });

  test('SPEC §23.4: a user row is matched before the built-in table (by provider or host)', () => {
    const overrides = [
      { providers: ['Mistral'], carriers: [R, RC] },
      { hosts: ['llm.acme.test'], carriers: [RD] },
    ];
    expect(resolveCarrierRoute('mistral', undefined, { overrides })).toEqual({ carriers: [RC, R], row: 'override' });
    expect(routeCarriers('custom', 'https://eu.llm.acme.test/v1', { overrides })).toEqual([RD]);
    expect(routeCarriers('openrouter', undefined, { overrides })).toEqual([RC, R, RD]);
  });

  test('the table is ordered with the strict rows first', () => {
    expect(CARRIER_ROUTE_ROWS.map((row) => row.name)).toEqual([
      'cerebras',
      'strict',
      'reasoning-content-only',
      'full',
      'content-and-details',
      'content-and-reasoning',
    ]);
  });
});

describe('SPEC §23.7 Cerebras refinement (evidence: WIRE.md §1.6, §6)', () => {
  test('the recorded Cerebras turn 2 request replays `reasoning` only, and Cerebras answered 200', () => {
    const cassette = readFixtureJson<{
      interactions: { request: { body: { messages: Record<string, unknown>[] } }; response: { status: number } }[];
    }>('cerebras/pydantic-thinking-part-survives-multiturn.cassette.json');
    const second = cassette.interactions[1];
    const assistant = second?.request.body.messages.find((message) => message['role'] === 'assistant');
    expect(second?.response.status).toBe(200);
    const carriersInFixture = (['reasoning_content', 'reasoning', 'reasoning_details'] as const).filter(
      (key) => assistant !== undefined && key in assistant,
    );
    expect(carriersInFixture).toEqual(routeCarriers('cerebras', 'https://api.cerebras.ai/v1'));
  });
});
