import { describe, expect, it } from 'vitest';
import { continuitySentence, readClientFixture, replayClientFixture } from '../gateway/front-door-clients-helpers.js';
import { useE2e } from '../support/e2e.js';
import { GATEWAY_TOKEN, startFrontDoorFleet, upstreamStatuses } from './e2e-front-door-helpers.js';

/**
 * What Claude Code, Codex, OpenCode and Gemini CLI really sent (test/fixtures/clients/), replayed against a
 * real `hermes gateway` (token required, as the clients send it) onto the DeepSeek, Kimi,
 * Gemini and Anthropic emulators: every answer has the captured status and continuity, and no
 * upstream answers anything but 200.
 */

const e2e = useE2e();

const FIXTURES = [
  ['claude-code-anthropic-tool-loop', { 'x-api-key': GATEWAY_TOKEN }],
  ['claude-code-deepseek-resume-kimi', { 'x-api-key': GATEWAY_TOKEN }],
  ['claude-code-toolsearch-websearch', { 'x-api-key': GATEWAY_TOKEN }],
  ['codex-namespace-kimi-gemini', { authorization: `Bearer ${GATEWAY_TOKEN}` }],
  ['opencode-chat-title-and-tool', { authorization: `Bearer ${GATEWAY_TOKEN}` }],
  ['opencode-responses-no-ids', { authorization: `Bearer ${GATEWAY_TOKEN}` }],
  ['gemini-cli-resume-switch', { 'x-goog-api-key': GATEWAY_TOKEN }],
  ['gemini-cli-acp-live', { 'x-goog-api-key': GATEWAY_TOKEN }],
] as const;

describe('the real clients against hermes gateway', () => {
  it('every captured run replays: the captured statuses and continuity, 0 upstream 4xx', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    for (const [name, headers] of FIXTURES) {
      const fixture = readClientFixture(name);
      const answers = await replayClientFixture(fleet.gateway.url, fixture, headers);
      const replayed = answers.map((answer) => [answer.status, continuitySentence(answer.text)]);
      const captured = fixture.exchanges.map((exchange) => [exchange.status, exchange.answered]);
      expect(replayed, name).toEqual(captured);
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
  });
});
