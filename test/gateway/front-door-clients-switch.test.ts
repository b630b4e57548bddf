import { afterEach, describe, expect, it } from 'vitest';
import {
  continuitySentence,
  readClientFixture,
  realHostChatUpstream,
  replayClientFixture,
  startClientsGateway,
} from './front-door-clients-helpers.js';
import { startUpstream, type Upstream } from './front-door-helpers.js';

/**
 * The real Claude Code and Codex switching models mid-session onto the routes that require a
 * carrier (test/fixtures/clients/claude-code-switch-gemini-copilot.json,
 * codex-switch-gemini-copilot.json): DeepSeek, then Gemini through Google's OpenAI
 * compatibility (Pro, then Flash), then Copilot. Claude Code drops every thinking block after a
 * switch; Codex keeps every item. Every turn answers with the continuity the capture reported,
 * and no upstream request is refused (SPEC §26.1, §26.2).
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function switchGateway() {
  const deepseek = await realHostChatUpstream('deepseek');
  const pro = await startUpstream('gemini-openai');
  const flash = await startUpstream('gemini-openai');
  const copilot = await startUpstream('copilot');
  const upstreams: Upstream[] = [pro, flash, copilot];
  cleanups.push(() => deepseek.close());
  for (const upstream of upstreams) cleanups.push(() => upstream.close());
  const flashRoute = { ...flash.route, route: { ...flash.route.route, model: 'gemini-3-flash-preview' } };
  const { gateway } = await startClientsGateway([
    { name: 'deepseek', route: deepseek.route },
    { name: 'gemini-openai', route: pro.route },
    { name: 'gemini-flash', route: flashRoute },
    { name: 'copilot', route: copilot.route },
  ]);
  cleanups.push(() => gateway.close());
  const statuses = () =>
    [deepseek.requests, ...upstreams.map((upstream) => upstream.requests)].flatMap((requests) =>
      requests.map((request) => request.status),
    );
  return { gateway, statuses };
}

describe('real clients switching onto Gemini (OpenAI compatibility) and Copilot', () => {
  it.each(['claude-code-switch-gemini-copilot', 'codex-switch-gemini-copilot'])('%s', async (name) => {
    const fixture = readClientFixture(name);
    const { gateway, statuses } = await switchGateway();
    const answers = await replayClientFixture(gateway.url, fixture);
    expect(answers.map((answer) => answer.status)).toEqual(fixture.exchanges.map((exchange) => exchange.status));
    expect(answers.map((answer) => continuitySentence(answer.text))).toEqual(
      fixture.exchanges.map((exchange) => exchange.answered),
    );
    expect(statuses()).toEqual(fixture.exchanges.map(() => 200));
  });
});
