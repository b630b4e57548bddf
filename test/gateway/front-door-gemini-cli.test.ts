import { afterEach, describe, expect, it } from 'vitest';
import {
  continuitySentence,
  readClientFixture,
  realHostChatUpstream,
  replayClientFixture,
  startClientsGateway,
} from './front-door-clients-helpers.js';
import { startUpstream } from './front-door-helpers.js';

/**
 * What Gemini CLI 0.61.0 really sent through the gateway (test/fixtures/clients/gemini-cli-*),
 * replayed onto the same routes: headless runs resumed with `--resume latest` and switched with
 * `-m` (no session id anywhere, thought parts dropped, every call's signature replaced with
 * `skip_thought_signature_validator`, text signatures dropped, each function response repeated),
 * and a live ACP session (`gemini --acp`) that keeps its handles. Every answer reports the
 * continuity of the capture, found by history alone, with no upstream 4xx.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function geminiCliGateway() {
  const deepseek = await realHostChatUpstream('deepseek');
  const gemini = await startUpstream('gemini');
  const openrouter = await startUpstream('openrouter');
  const anthropic = await startUpstream('anthropic');
  const upstreams = [deepseek, gemini, openrouter, anthropic];
  for (const upstream of upstreams) cleanups.push(() => upstream.close());
  const { gateway, store } = await startClientsGateway([
    { name: 'deepseek', route: deepseek.route },
    { name: 'gemini', route: gemini.route },
    { name: 'openrouter', route: openrouter.route },
    { name: 'claude-*', route: anthropic.route },
  ]);
  cleanups.push(() => gateway.close());
  return { gateway, store, statuses: () => upstreams.flatMap((upstream) => upstream.requests.map((r) => r.status)) };
}

describe('Gemini CLI through the gateway, replayed', () => {
  it.each(['gemini-cli-resume-switch', 'gemini-cli-acp-live'])(
    '%s: the captured continuity on every answer, one session found by history, 0 upstream 4xx',
    async (name) => {
      const fixture = readClientFixture(name);
      const { gateway, store, statuses } = await geminiCliGateway();
      const answers = await replayClientFixture(gateway.url, fixture);
      expect(answers.map((answer) => [answer.status, continuitySentence(answer.text)])).toEqual(
        fixture.exchanges.map((exchange) => [exchange.status, exchange.answered]),
      );
      expect(statuses().filter((status) => status !== 200)).toEqual([]);
      const sessions = await store.listSessions();
      expect(sessions).toHaveLength(1);
      expect(await store.listRequests(sessions[0]!.id)).toHaveLength(fixture.exchanges.length);
    },
  );
});
