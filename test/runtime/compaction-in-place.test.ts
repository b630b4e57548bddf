import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/core/event-stream.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { estimateRequestTokens } from '../../src/replay/replay-token-estimate.js';
import { runAgentTurn } from '../../src/runtime/agent-turn.js';
import { compressSession, SUMMARY_MESSAGE_PREFIX } from '../../src/runtime/compaction-run.js';
import type { CompactionSettings } from '../../src/runtime/compaction-plan.js';
import { COMPACTION_SUMMARY_PROMPT } from '../../src/runtime/compaction-summary.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import type { Transport, TransportRequest } from '../../src/transports/shared/transport.js';
import { longSession, PLANTED_IDENTIFIERS, reasoningOfTurn } from '../support/long-session.js';
import { makeWorkspace, turnOptions } from './runtime-test-helpers.js';

/**
 * In-place compaction through the runtime (SPEC §26.6) with a summariser that drops every
 * identifier: the session keeps its id, the summarised turns are archived and findable, the
 * kept tail is byte for byte what it was, summary requests fit the window (a history larger
 * than the window goes in parts, then a merge) and never quote reasoning, the stored summary
 * lists every planted identifier, and the next turns do not compact again.
 */

const WINDOW = 200_000;
const route: Route = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' };

/** Answers summary requests with a terse, identifier-free text, and other requests with `done`. */
function summarisingTransport() {
  const requests: TransportRequest[] = [];
  const transport: Transport = {
    api: 'chat_completions',
    prepare: () => ({ url: 'http://x', body: {}, decisions: [], carriersSent: [], routeKey: 'deepseek|x|m' }),
    send(request) {
      requests.push(request);
      const stream = new EventStream();
      const summary = request.history[0]?.role === 'system' && request.history[0].content.includes('compacting');
      const reply: AssistantMessage = {
        role: 'assistant',
        content: summary ? 'The user and the agent worked on it.' : 'done',
      };
      queueMicrotask(() =>
        stream.end({ type: 'finish', message: reply, finishReason: { unified: 'stop', raw: 'stop' }, usage: null }),
      );
      return stream;
    },
  };
  const summaryRequests = () =>
    requests.filter((request) => request.history[0]?.role === 'system' && request.tools.length === 0);
  return { transport, requests, summaryRequests };
}

async function seeded(store: SessionStore, messages: Message[]): Promise<string> {
  const session = await store.createSession({ title: 'long', provider: route.provider, model: route.model });
  await store.appendMessages(session.id, messages);
  return session.id;
}

const compaction = { contextWindow: WINDOW, threshold: 0.8, keepTurns: 20 };

/** `compressSession` options on the test route, every request through `transport`. */
function compressOptions(store: SessionStore, sessionId: string, transport: Transport, settings: CompactionSettings) {
  return {
    store,
    sessionId,
    route,
    apiKey: 'k',
    reasoning: { enabled: false },
    transportFor: () => transport,
    compaction: settings,
  };
}

describe('in-place compaction (SPEC §26.6)', () => {
  it('a 562K-token session on a 200K window: same id, parts that fit, identifiers kept, tail byte for byte', async () => {
    const store = createMemorySessionStore();
    const history = longSession({ turns: 126, resultTokens: 4_400 });
    expect(estimateRequestTokens(history, { chargeStaleThinking: true })).toBeGreaterThan(560_000);
    const id = await seeded(store, history);
    const fake = summarisingTransport();
    const progress: string[] = [];
    const outcome = await compressSession(compressOptions(store, id, fake.transport, compaction), (line) =>
      progress.push(line),
    );
    expect(outcome).toMatchObject({ compacted: true, sessionId: id });
    expect(outcome.childSessionId).toBeUndefined();

    // Summary requests: several parts and a merge, each inside the window, none quoting reasoning.
    const requests = fake.summaryRequests();
    expect(requests.length).toBeGreaterThan(3);
    expect(progress.some((line) => /summarising part 1 of \d+/.test(line))).toBe(true);
    expect(progress.some((line) => /merging \d+ part summaries/.test(line))).toBe(true);
    for (const request of requests) {
      const size = estimateRequestTokens(request.history, { chargeStaleThinking: true }) + (request.maxTokens ?? 0);
      expect(size).toBeLessThanOrEqual(WINDOW);
      expect(request.history.map((message) => message.role)).toEqual(['system', 'user']);
      const text = JSON.stringify(request.history);
      expect(text).not.toContain('PRIVATE-REASONING');
      expect(text).not.toContain('gAAAA');
      expect(request.reasoning.enabled).toBe(false);
    }
    expect(requests[0]?.history[0]?.content).toBe(COMPACTION_SUMMARY_PROMPT);

    // The live history: head, the summary with every planted identifier, the tail as it was.
    const live = await store.listMessages(id);
    const plan = outcome.plan;
    expect(live.slice(0, 2)).toStrictEqual(history.slice(0, 2));
    const summary = String(live[2]?.content);
    expect(summary.startsWith(SUMMARY_MESSAGE_PREFIX)).toBe(true);
    expect(summary).toContain('The user and the agent worked on it.');
    for (const identifier of PLANTED_IDENTIFIERS) expect(summary).toContain(identifier);
    expect(summary).not.toContain(reasoningOfTurn(2));
    expect(live.slice(3)).toStrictEqual(history.slice(plan.tailStart));
    expect(plan.tailTokens).toBeLessThanOrEqual(25_000);

    // Archived, not lost: every summarised message is stored, marked, and findable.
    const all = await store.listMessages(id, { includeArchived: true });
    expect(all.filter((message) => (message as { _archived?: number })._archived === 1)).toHaveLength(
      plan.tailStart - plan.headEnd,
    );
    const hits = await store.searchMessages('compaction-plan.ts');
    expect(hits.some((hit) => hit.sessionId === id && hit.archived === 1)).toBe(true);
    expect((await store.listSessions()).map((session) => session.id)).toEqual([id]);
    const record = (await store.getSession(id))?.modelConfig['compactions'];
    expect(record).toEqual([
      expect.objectContaining({
        number: 1,
        in_place: true,
        tail: 'lean',
        tail_budget: 10_000,
        tail_tokens: plan.tailTokens,
        summarised_messages: plan.tailStart - plan.headEnd,
        summary_requests: requests.length,
        identifiers: expect.any(Number),
      }),
    ]);
    // The lease compaction took is released.
    expect(await store.readLease(id)).toBeNull();
  });

  it('the next turns run on the compacted history and never compact again (no loop)', async () => {
    const store = createMemorySessionStore();
    const id = await seeded(store, longSession({ turns: 110, resultTokens: 4_400 }));
    const fake = summarisingTransport();
    const workspace = makeWorkspace();
    const setup = { store, sessionId: id, route, workspace, transport: fake.transport };
    const events: string[] = [];
    const first = await runAgentTurn(
      'go on',
      turnOptions(setup, { compaction, onEvent: (event) => events.push(event.type) }),
    );
    expect(first.sessionId).toBe(id);
    expect(events).toContain('compacted');
    const summaries = fake.summaryRequests().length;
    expect(summaries).toBeGreaterThan(0);
    for (let turn = 0; turn < 3; turn += 1) {
      const next = await runAgentTurn(`and again ${turn}`, turnOptions(setup, { compaction }));
      expect(next.sessionId).toBe(id);
    }
    expect(fake.summaryRequests()).toHaveLength(summaries);
    // The turn after compaction sent head + summary + tail + its own question, nothing archived.
    const last = fake.requests[fake.requests.length - 1];
    expect(estimateRequestTokens(last?.history ?? [], { chargeStaleThinking: true })).toBeLessThan(40_000);
    expect((await store.getSession(id))?.modelConfig['compactions']).toHaveLength(1);
  });

  it('a session whose first message alone is over the limit is not summarised over and over: it says why, once per turn, with no request', async () => {
    const store = createMemorySessionStore();
    const history: Message[] = [
      { role: 'user', content: 'huge paste '.repeat(80_000) },
      ...longSession({ turns: 6, resultTokens: 1_000 }).slice(2),
    ];
    const id = await seeded(store, history);
    const fake = summarisingTransport();
    const outcome = await compressSession(
      compressOptions(store, id, fake.transport, compaction),
      () => undefined,
      false,
    );
    expect(outcome.compacted).toBe(false);
    expect(outcome.message).toMatch(
      /^compaction cannot bring this session under the limit: the first message and the kept tail alone are about \d+ tokens \(limit 160000\)/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('in_place: false writes a child session and leaves the source as it was', async () => {
    const store = createMemorySessionStore();
    const history = longSession({ turns: 20, resultTokens: 1_000 });
    const id = await seeded(store, history);
    const fake = summarisingTransport();
    const outcome = await compressSession(
      compressOptions(store, id, fake.transport, { ...compaction, inPlace: false }),
    );
    expect(outcome.childSessionId).toBeDefined();
    expect(outcome.sessionId).toBe(outcome.childSessionId);
    expect(await store.listMessages(id)).toStrictEqual(history);
    const child = await store.getSession(outcome.sessionId);
    expect(child?.parentSessionId).toBe(id);
    expect(child?.modelConfig['compaction']).toMatchObject({ source_session_id: id, in_place: false, tail: 'lean' });
  });
});
