import { expect } from 'vitest';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import type { E2e, GatewayProcess, Sandbox } from '../support/e2e.js';

/**
 * One real `hermes gateway` in front of five provider emulators, each reached by the model name
 * a client sends (config.yaml `gateway.models`), the way a user points Claude Code or Codex at
 * the gateway: DeepSeek and Kimi on their real hosts (mapped onto chat emulators with
 * HERMES_CONNECT_TO, so their host-based route rows apply as in production), Gemini, OpenRouter,
 * and Anthropic for every `claude-*` name. The gateway requires a token (sent in `x-api-key` as
 * Claude Code sends it, and as a bearer by the openai SDK).
 */

/** Model names the clients send, one per upstream. */
export const FRONT_DOOR_MODELS = ['deepseek', 'kimi', 'gemini', 'openrouter', 'claude-sonnet-4-5'] as const;

/** A model name the clients send. */
export type FrontDoorModel = (typeof FRONT_DOOR_MODELS)[number];

/** The gateway token of the fleet. */
export const GATEWAY_TOKEN = 'front-door-e2e-token';

/** The running fleet: the gateway, each upstream's request log, the sandbox. */
export interface FrontDoorFleet {
  gateway: GatewayProcess;
  sandbox: Sandbox;
  requests: Record<FrontDoorModel, ReceivedRequest[]>;
  env: Record<string, string>;
}

/** Starts the five emulators and `hermes gateway` over them (stopped after the test by `e2e`). */
export async function startFrontDoorFleet(e2e: E2e): Promise<FrontDoorFleet> {
  const deepseek = await e2e.chat({ persona: 'deepseek' });
  const kimi = await e2e.chat({ persona: 'deepseek' });
  const openrouter = await e2e.chat({ persona: 'openrouter' });
  const gemini = await e2e.gemini();
  const anthropic = await e2e.anthropic();
  const origin = (url: string) => new URL(url).origin;
  const config = [
    'gateway:',
    '  models:',
    '    deepseek: { provider: deepseek, model: deepseek-v4-flash, base_url: "https://api.deepseek.com/v1" }',
    '    kimi: { provider: kimi, model: kimi-k2-thinking, base_url: "https://api.moonshot.ai/v1" }',
    `    gemini: { provider: google, api: gemini, model: gemini-3-pro-preview, base_url: "${gemini.baseUrl}" }`,
    `    openrouter: { provider: openrouter, model: anthropic/claude-sonnet-4.5, base_url: "${openrouter.baseUrl}" }`,
    `    'claude-*': { provider: anthropic, model: claude-opus-4-8, base_url: "${anthropic.baseUrl}" }`,
    '',
  ].join('\n');
  const sandbox = e2e.sandbox({ config });
  const env = {
    HERMES_CONNECT_TO: `https://api.deepseek.com=${origin(deepseek.baseUrl)},https://api.moonshot.ai=${origin(kimi.baseUrl)}`,
    HERMES_GATEWAY_TOKEN: GATEWAY_TOKEN,
    MOONSHOT_API_KEY: 'sk-kimi-test',
    GEMINI_API_KEY: 'gm-test',
    OPENROUTER_API_KEY: 'sk-or-test',
    ANTHROPIC_API_KEY: 'sk-ant-test',
  };
  const route = ['--provider', 'deepseek', '--model', 'deepseek-v4-flash', '--base-url', 'https://api.deepseek.com/v1'];
  const gateway = await e2e.gateway([...route, '--api-key', 'sk-deepseek-test'], sandbox, env);
  return {
    gateway,
    sandbox,
    env,
    requests: {
      deepseek: deepseek.requests,
      kimi: kimi.requests,
      gemini: gemini.requests,
      openrouter: openrouter.requests,
      'claude-sonnet-4-5': anthropic.requests,
    },
  };
}

/** Every status the upstreams answered. */
export function upstreamStatuses(fleet: FrontDoorFleet): number[] {
  return Object.values(fleet.requests).flatMap((requests) => requests.map((request) => request.status));
}

/** The assistant turns of an upstream request, whatever its wire (chat or Anthropic `messages`, Gemini `contents`). */
export function upstreamAssistants(request: ReceivedRequest | undefined): Record<string, unknown>[] {
  const body = (request?.body ?? {}) as { messages?: Record<string, unknown>[]; contents?: Record<string, unknown>[] };
  if (body.contents) return body.contents.filter((content) => content['role'] === 'model');
  return (body.messages ?? []).filter((message) => message['role'] === 'assistant');
}

/** What the route table sends back for the tool-call turn, per upstream (SPEC §5, §9, §11). */
export const CARRIER_CHECKS: Record<FrontDoorModel, (turn: Record<string, unknown>, thinking: string) => void> = {
  deepseek: (turn, thinking) => {
    expect(turn['reasoning_content']).toBe(thinking);
    expect(turn['reasoning_details']).toBeUndefined();
  },
  kimi: (turn, thinking) => expect(turn['reasoning_content']).toBe(thinking),
  openrouter: (turn, thinking) => {
    const details = turn['reasoning_details'] as Record<string, unknown>[];
    expect(details.some((entry) => entry['text'] === thinking && typeof entry['signature'] === 'string')).toBe(true);
  },
  gemini: (turn) => {
    const parts = turn['parts'] as Record<string, unknown>[];
    expect(
      parts.some((part) => part['functionCall'] !== undefined && typeof part['thoughtSignature'] === 'string'),
    ).toBe(true);
  },
  'claude-sonnet-4-5': (turn, thinking) => {
    const [first] = turn['content'] as Record<string, unknown>[];
    expect(first).toMatchObject({ type: 'thinking', thinking });
    expect(String(first?.['signature'])).not.toMatch(/^hermes\./);
  },
};
