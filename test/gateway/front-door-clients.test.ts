import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import type { RunningGateway } from '../../src/gateway/gateway-serve.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import {
  continuitySentence,
  readClientFixture,
  realHostChatUpstream,
  replayClientFixture,
  startClientsGateway,
  type ClientFixture,
} from './front-door-clients-helpers.js';
import { startUpstream } from './front-door-helpers.js';

/**
 * The real clients' requests, replayed (test/fixtures/clients/: captured from Claude Code
 * 2.1.332, Codex 0.171.0 and OpenCode 1.18.33 against a loopback `hermes gateway`): the exact
 * shapes they send — `role: "system"` notes among the turns, thinking dropped after a model
 * change, Codex's `namespace` tools and its `web_search`, OpenCode's tool-less side requests and
 * id-less items — go through a gateway onto the same routes, and every
 * turn answers, no upstream request is refused, and the reasoning continuity each captured
 * answer reported comes back.
 */

/** The model names the captures used, each onto the route it named in the capture. */
type Upstreams = Record<'deepseek' | 'kimi' | 'gemini' | 'claude-opus-4-8', ReceivedRequest[]>;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function clientGateway(): Promise<{ gateway: RunningGateway; store: SessionStore; upstreams: Upstreams }> {
  const deepseek = await realHostChatUpstream('deepseek');
  const kimi = await realHostChatUpstream('kimi');
  const gemini = await startUpstream('gemini');
  const anthropic = await startUpstream('anthropic');
  for (const upstream of [deepseek, kimi, gemini, anthropic]) cleanups.push(() => upstream.close());
  const { gateway, store } = await startClientsGateway([
    { name: 'deepseek', route: deepseek.route },
    { name: 'kimi', route: kimi.route },
    { name: 'gemini', route: gemini.route },
    { name: 'claude-*', route: anthropic.route },
  ]);
  cleanups.push(() => gateway.close());
  const upstreams = {
    deepseek: deepseek.requests,
    kimi: kimi.requests,
    gemini: gemini.requests,
    'claude-opus-4-8': anthropic.requests,
  };
  return { gateway, store, upstreams };
}

/** Replays the fixture: every answer 200, named as asked, reporting the captured continuity; no upstream 4xx. */
async function replay(name: string) {
  const fixture = readClientFixture(name);
  const { gateway, store, upstreams } = await clientGateway();
  const answers = await replayClientFixture(gateway.url, fixture);
  expect(answers.map((answer) => answer.status)).toEqual(fixture.exchanges.map((exchange) => exchange.status));
  expect(answers.map((answer) => continuitySentence(answer.text))).toEqual(
    fixture.exchanges.map((exchange) => exchange.answered),
  );
  const answered = fixture.exchanges.filter((exchange) => exchange.status === 200);
  expect(answers.filter((answer) => answer.status === 200).map((answer) => answer.model)).toEqual(
    answered.map((exchange) => exchange.body['model']),
  );
  // One upstream request per answered exchange: nothing refused, nothing retried.
  const statuses = Object.values(upstreams).flatMap((requests) => requests.map((request) => request.status));
  expect(statuses).toEqual(answered.map(() => 200));
  return { fixture, answers, upstreams, store };
}

/** The client's session id of an exchange (Claude Code, Codex, OpenCode headers). */
function sessionOf(fixture: ClientFixture, index: number): string {
  const headers = fixture.exchanges[index]?.headers ?? {};
  return headers['x-claude-code-session-id'] ?? headers['session-id'] ?? headers['x-session-id'] ?? '';
}

describe('the real clients, replayed', () => {
  it('Claude Code on the Anthropic route: its system notes among the turns leave the system prompt and its signatures alone', async () => {
    const { upstreams, answers, fixture, store } = await replay('claude-code-anthropic-tool-loop');
    // The capture holds notes among the turns (environment, `<total_tokens>` after the tool result).
    const notes = fixture.exchanges[1]!.body['messages'] as { role: string }[];
    expect(notes.filter((message) => message.role === 'system').length).toBeGreaterThanOrEqual(2);
    const sent = upstreams['claude-opus-4-8'].map((request) => request.body as Record<string, unknown>);
    // One system prompt for the whole conversation (signatures are bound to it, WIRE §2.6b) …
    expect(new Set(sent.map((body) => JSON.stringify(body['system']))).size).toBe(1);
    // … the notes travel in the user turns, and the turn's thinking went back signed.
    const turns = sent[1]!['messages'] as { role: string; content: { type: string; text?: string }[] }[];
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[2]!.content.map((block) => block.type)).toEqual(['tool_result', 'text']);
    expect(turns[2]!.content[1]!.text).toMatch(/^<total_tokens>/);
    expect(turns[1]!.content[0]!.type).toBe('thinking');
    expect(answers[0]!.calls).toEqual([expect.objectContaining({ type: 'tool_use', name: 'Read' })]);
    expect((await store.listMessages(sessionOf(fixture, 0))).length).toBeGreaterThan(0);
  });

  it('Claude Code on DeepSeek, resumed, then switched to Kimi: the thinking it dropped comes back from its session', async () => {
    const { upstreams, fixture } = await replay('claude-code-deepseek-resume-kimi');
    // Resumed with the same model, Claude Code echoed the thinking (the answers named the model it asked for) …
    const resumed = fixture.exchanges[2]!.body['messages'] as { role: string; content: unknown }[];
    expect(JSON.stringify(resumed)).toContain('{{handle:2}}');
    // … after the switch it dropped every thinking block, and added "You are powered by the model kimi."
    const switched = JSON.stringify(fixture.exchanges[3]!.body['messages']);
    expect(switched).not.toContain('"thinking"');
    expect(switched).toContain('You are powered by the model kimi.');
    // Claude Code names its session, so the gateway restores what it dropped (SPEC §26.1): the
    // captured answer said "broken (1 intact, 0 altered, 3 missing of 4)" before restoration.
    // Kimi's must-echo rule: every tool-call turn it got carries reasoning_content.
    for (const request of upstreams.kimi) {
      const messages = (request.body as { messages: Record<string, unknown>[] }).messages;
      const calling = messages.filter((message) => Array.isArray(message['tool_calls']));
      expect(calling.length).toBeGreaterThan(0);
      for (const message of calling) expect(typeof message['reasoning_content']).toBe('string');
    }
  });

  it('Codex: namespace tools and its calls round-trip, web_search is left out, a switch to Kimi and Gemini keeps answering', async () => {
    const { upstreams, answers, fixture, store } = await replay('codex-namespace-kimi-gemini');
    const offered = fixture.tools as { type: string }[];
    expect(offered.map((tool) => tool.type)).toEqual(expect.arrayContaining(['namespace', 'web_search']));
    const upstreamTools = (upstreams.deepseek[0]!.body as { tools: { function: { name: string } }[] }).tools.map(
      (tool) => tool.function.name,
    );
    expect(upstreamTools).toContain('multi_agent_v1__close_agent');
    expect(upstreamTools.some((name) => name.includes('web_search'))).toBe(false);
    expect(answers[0]!.calls).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1' }),
    ]);
    // Codex echoed the call as it got it; the route got its own name back.
    const echoed = JSON.stringify(upstreams.deepseek[1]!.body);
    expect(echoed).toContain('"name":"multi_agent_v1__close_agent"');
    // Its <model_switch> developer note is user text, not a second system prompt.
    for (const request of upstreams.gemini) {
      const body = request.body as { systemInstruction?: unknown };
      expect(JSON.stringify(body.systemInstruction ?? '')).not.toContain('<model_switch>');
    }
    expect((await store.listMessages(sessionOf(fixture, 0))).length).toBeGreaterThan(0);
  });

  it("Claude Code's ToolSearch and WebSearch: a tool_reference reads as the tool's name, the hosted search is refused once, finally", async () => {
    const { upstreams, answers, fixture } = await replay('claude-code-toolsearch-websearch');
    // ToolSearch answered with a tool_reference block; the model read which tool came.
    expect(JSON.stringify(fixture.exchanges[1]!.body['messages'])).toContain('"type":"tool_reference"');
    const loaded = (upstreams.deepseek[1]!.body as { messages: Record<string, unknown>[] }).messages.at(-1);
    expect(loaded).toEqual(expect.objectContaining({ role: 'tool', content: '[tool WebSearch is available]' }));
    // WebSearch is a side request offering only Anthropic's hosted web_search: a 400 naming it, not to be retried.
    const side = fixture.exchanges[3]!.body['tools'] as { type?: string }[] | string;
    expect(JSON.stringify(fixture.toolSets)).toContain('web_search_20250305');
    expect(side).toMatch(/^\{\{tools:\d\}\}$/);
    for (const answer of answers.filter((entry) => entry.status === 400)) {
      expect(answer.error).toMatch(
        /hosted tools are not available through the gateway: web_search \(web_search_20250305\)/,
      );
      expect(answer.shouldRetry).toBe('false');
    }
    // The search tool's failure reached the model as its result, and the turn went on.
    expect(answers.at(-1)!.text).toContain('The tool returned:');
  });

  it('OpenCode over chat completions: its title request without tools is a plain completion, its tool loop passes through', async () => {
    const { upstreams, answers, fixture, store } = await replay('opencode-chat-title-and-tool');
    const title = fixture.exchanges[0]!.body;
    expect(title['tools']).toBeUndefined();
    // No gateway tool reached the provider with the title request, and no stored session of the agent loop opened.
    expect((upstreams.deepseek[0]!.body as Record<string, unknown>)['tools']).toBeUndefined();
    expect(answers[1]!.calls).toEqual([expect.objectContaining({ id: expect.any(String), type: 'function' })]);
    const sessions = await store.listSessions({ limit: 10 });
    expect(sessions.map((session) => session.id)).toEqual([sessionOf(fixture, 0)]);
  });

  it('OpenCode over Responses: items without ids, the reasoning item echoed with its handle', async () => {
    const { fixture } = await replay('opencode-responses-no-ids');
    const items = fixture.exchanges[2]!.body['input'] as Record<string, unknown>[];
    const echoed = items.filter((item) => item['type'] === 'reasoning' || item['type'] === 'function_call');
    expect(echoed.map((item) => [item['type'], 'id' in item])).toEqual([
      ['reasoning', false],
      ['function_call', false],
    ]);
  });
});
