import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import { quotedReasoningSentence } from '../../src/emulators/shared/scripted-summary.js';
import { SUMMARY_MESSAGE_PREFIX } from '../../src/runtime/compaction-run.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { carrierText } from '../support/carriers.js';
import { chatJson, parseJson, resumeArgs, runHermes, type Sandbox, useE2e } from '../support/e2e.js';
import { longSession, PLANTED_IDENTIFIERS } from '../support/long-session.js';

/**
 * SPEC §26.6 end to end, on DeepSeek, OpenRouter, Anthropic and Responses emulator routes: a
 * ~500K-token session (seeded through the store API around turns the emulator really answered)
 * compacts in place on its next turn. Same id; a lean tail within the clamp; every kept carrier
 * byte-identical in the store and carried by the next request; the summary requests fit the
 * 200K window and carry no reasoning; the stored summary lists every planted identifier although
 * the scripted summariser drops them; the archived turns are findable; the session stays one row
 * and `--resume` continues it without compacting again.
 */

const e2e = useE2e();
const WINDOW = 200_000;
const CONFIG = `compaction:\n  context_window: ${WINDOW}\n`;

interface Shown {
  model_config: Record<string, unknown>;
  messages: Message[];
}

interface Route {
  name: string;
  /** Starts the emulator; returns its base URL and request log. */
  start(): Promise<{ baseUrl: string; requests: ReceivedRequest[] }>;
  args(baseUrl: string): string[];
  /** The carriers of a kept assistant turn as they must appear, byte for byte, in the next request. */
  carriers(message: AssistantMessage): string[];
}

const routes: Route[] = [
  {
    name: 'DeepSeek',
    // The emulator enforces the window itself: a summary request over 200K tokens is its 400.
    start: () => e2e.chat({ persona: 'deepseek', contextWindow: WINDOW }),
    args: (baseUrl) => [
      '--provider',
      'deepseek',
      '--model',
      'deepseek-v4-flash',
      '--base-url',
      baseUrl,
      '--api-key',
      'k',
    ],
    carriers: (message) =>
      typeof message.reasoning_content === 'string' ? [JSON.stringify(message.reasoning_content)] : [],
  },
  {
    name: 'OpenRouter',
    start: () => e2e.chat({ persona: 'openrouter', contextWindow: WINDOW }),
    args: (baseUrl) => [
      ...['--provider', 'openrouter', '--model', 'anthropic/claude-sonnet-4.5'],
      ...['--base-url', baseUrl, '--api-key', 'k'],
    ],
    carriers: (message) => (message.reasoning_details?.length ? [JSON.stringify(message.reasoning_details)] : []),
  },
  {
    name: 'Anthropic',
    start: () => e2e.anthropic(),
    args: (baseUrl) => [
      '--provider',
      'anthropic',
      '--model',
      'claude-opus-4-8',
      '--base-url',
      baseUrl,
      '--api-key',
      'x',
    ],
    // Signed blocks travel today (SPEC §9.1); thinking-block binding (SPEC §26.4) may leave stale ones out.
    carriers: (message) =>
      (message.anthropic_content_blocks ?? [])
        .filter((block) => String(block['type']).endsWith('thinking'))
        .map((block) => carrierText(block)),
  },
  {
    name: 'Responses',
    start: () => e2e.responses({ issuer: 'openai' }),
    args: (baseUrl) => [
      ...['--provider', 'openai-responses', '--api', 'codex_responses', '--model', 'gpt-5.4'],
      ...['--base-url', baseUrl, '--api-key', 'x'],
    ],
    carriers: (message) =>
      (message.codex_reasoning_items ?? [])
        .map((item) => item['encrypted_content'])
        .filter((blob): blob is string => typeof blob === 'string')
        .map((blob) => JSON.stringify(blob)),
  },
];

/** A summary request: its system instruction starts the compaction prompts (compaction-summary.ts). */
function isSummaryRequest(request: ReceivedRequest): boolean {
  return request.raw.includes('You are compacting a long agent session');
}

/** The private usage anchor is the one key compaction drops from kept turns (SPEC §15). */
function withoutUsage(message: Message): Message {
  if (message.role !== 'assistant' || !('_usage' in message)) return message;
  const copy: AssistantMessage = { ...message };
  delete copy['_usage'];
  return copy;
}

/**
 * The long session: the real turns' system prompt, a first message, ~500K tokens of seeded
 * tool-loop turns (identifiers planted in turn 2), then the real turns, through the store API.
 */
async function seedLongSession(sandbox: Sandbox, realSessionId: string): Promise<string> {
  const store = openSqliteSessionStore(stateDbPath(sandbox.home));
  try {
    const real = await store.getSession(realSessionId);
    const realMessages = await store.listMessages(realSessionId);
    const [system, ...turns] = realMessages;
    expect(system?.role).toBe('system');
    const seeded = longSession({ turns: 110, resultTokens: 4_400, opaque: false }).slice(1);
    const session = await store.createSession({
      title: 'long session',
      provider: real?.provider ?? null,
      model: real?.model ?? null,
      baseUrl: real?.baseUrl ?? null,
      api: real?.api ?? null,
      modelConfig: real?.modelConfig ?? {},
    });
    // The real turns' usage anchors measured the short session's prompts, not this one's (SPEC §15).
    await store.appendMessages(session.id, [system as Message, ...seeded, ...turns.map(withoutUsage)]);
    return session.id;
  } finally {
    await store.close();
  }
}

describe('compaction in place with a lean tail, on a ~500K-token session (SPEC §26.6)', () => {
  it.each(routes)('$name', async (route) => {
    const emulator = await route.start();
    const sandbox = e2e.sandbox({ config: CONFIG });
    const args = route.args(emulator.baseUrl);
    // Real turns first: their carriers are what the emulator issued, and what the tail must keep.
    const real = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...args]);
    await chatJson(sandbox, [...resumeArgs(real.session_id, 'thanks'), ...args]);
    const id = await seedLongSession(sandbox, real.session_id);
    const before = await showJson(sandbox, id);
    expect(before.messages.length).toBeGreaterThan(440);

    const sent = emulator.requests.length;
    const turn = await chatJson(sandbox, [...resumeArgs(id, 'read the file notes.txt'), ...args]);
    expect(turn.session_id).toBe(id);
    expect(turn.answer).toContain('alpha beta');

    const after = await showJson(sandbox, id);
    const records = after.model_config['compactions'] as Record<string, number | string | boolean>[];
    expect(records).toHaveLength(1);
    const record = records[0] ?? {};
    expect(record).toMatchObject({ number: 1, in_place: true, tail: 'lean', tail_budget: 10_000 });
    // Within the clamp: the budget, or past it only for the three-user-message floor; never over 25K / 20 %.
    const tailTokens = Number(record['tail_tokens']);
    expect(tailTokens).toBeLessThanOrEqual(25_000);
    if (tailTokens > 10_000) expect(record['kept_turns']).toBe(3);
    expect(Number(record['estimate_after'])).toBeLessThan(40_000);

    // Head, summary, then the kept tail exactly as it was stored (the turn's question is its last).
    const kept = Number(record['kept_messages']);
    const question: Message = { role: 'user', content: 'read the file notes.txt' };
    const tailBefore = [...before.messages, question].slice(-kept).map(withoutUsage);
    expect(after.messages.slice(0, 2)).toStrictEqual(before.messages.slice(0, 2));
    const summary = String(after.messages[2]?.content);
    expect(summary.startsWith(SUMMARY_MESSAGE_PREFIX)).toBe(true);
    expect(after.messages.slice(3, 3 + kept).map((message) => ({ ...message, timestamp: 0 }))).toStrictEqual(
      tailBefore.map((message) => ({ ...message, timestamp: 0 })),
    );
    // The scripted summariser drops every identifier; the stored summary lists them all anyway.
    expect(summary).toContain('Scripted merge of');
    for (const identifier of PLANTED_IDENTIFIERS) expect(summary).toContain(identifier);
    expect(summary).toContain(quotedReasoningSentence(0));

    // The summary requests: parts that fit the window and a merge, no reasoning, no opaque blob.
    const turnRequests = emulator.requests.slice(sent);
    const summaries = turnRequests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(3);
    expect(summaries.length).toBe(Number(record['summary_requests']));
    for (const request of summaries) {
      expect(request.status).toBe(200);
      expect(Buffer.byteLength(request.raw) / 4).toBeLessThan(WINDOW);
      expect(request.raw).not.toContain('PRIVATE-REASONING');
      expect(request.raw).not.toMatch(/\[nonce:[0-9a-f]{12}\]/);
    }
    // The next request carries every kept carrier byte for byte, and nothing archived.
    const next = turnRequests.find((request) => !isSummaryRequest(request));
    expect(next?.status).toBe(200);
    const keptAssistants = tailBefore.filter((message): message is AssistantMessage => message.role === 'assistant');
    const carriers = keptAssistants.flatMap((message) => route.carriers(message));
    expect(carriers.length).toBeGreaterThan(0);
    for (const carrier of carriers) expect(next?.raw).toContain(carrier);
    expect(next?.raw).not.toContain('Step 1: go on.');
    expect(turnRequests.every((request) => request.status === 200)).toBe(true);

    // Archived, not lost: findable by search and by show --archived; one row per session.
    const search = await runHermes(['sessions', 'search', PLANTED_IDENTIFIERS[0], '--json'], sandbox);
    expect(search.code, search.stderr).toBe(0);
    const hits = parseJson<{ session_id: string; archived: boolean; compaction: number | null }[]>(search);
    expect(hits).toContainEqual(expect.objectContaining({ session_id: id, archived: true, compaction: 1 }));
    const archived = await showJson(sandbox, id, true);
    const marked = archived.messages.filter((message) => (message as { _archived?: number })._archived === 1);
    expect(marked).toHaveLength(Number(record['summarised_messages']));
    const shown = await runHermes(['sessions', 'show', id, '--archived'], sandbox);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('compacted 1× in place');
    expect(shown.stdout).toContain(`(archived #1) Step 2: look at ${PLANTED_IDENTIFIERS[0]}`);
    const list = await runHermes(['sessions', 'list', '--json'], sandbox);
    expect(parseJson<{ id: string }[]>(list).filter((row) => row.id === id)).toHaveLength(1);

    // --resume continues the compacted session and does not compact it again.
    const resumed = await chatJson(sandbox, [...resumeArgs(id, 'thanks'), ...args]);
    expect(resumed.session_id).toBe(id);
    expect(emulator.requests.slice(sent + turnRequests.length).some(isSummaryRequest)).toBe(false);
    expect((await showJson(sandbox, id)).model_config['compactions']).toHaveLength(1);
  });
});

/** The session as `sessions show --json` has it, read through the store (the document is megabytes). */
async function showJson(sandbox: Sandbox, id: string, includeArchived = false): Promise<Shown> {
  const store = openSqliteSessionStore(stateDbPath(sandbox.home));
  try {
    const session = await store.getSession(id);
    const messages = await store.listMessages(id, { includeUndone: true, includeArchived });
    return { model_config: session?.modelConfig ?? {}, messages };
  } finally {
    await store.close();
  }
}
