import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { ReceivedRequest } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { SUMMARY_MESSAGE_PREFIX } from '../../src/runtime/compaction-run.js';
import { COMPACTION_MERGE_PROMPT, COMPACTION_SUMMARY_PROMPT } from '../../src/runtime/compaction-summary.js';
import { assistantsOf, chatJson, routeArgs, type Sandbox, showSession, useE2e } from '../support/e2e.js';

/**
 * (SPEC §15–§16): with `compaction.in_place: false` and `tail: turns` (today's
 * child-session behaviour, SPEC §26.6), a session long enough to compact compacts automatically into
 * a child session, every retained assistant turn keeps its carriers byte for byte on the wire, the
 * next tool-call turn succeeds with no 400, and the child inherits the parent's model_config.
 */

const e2e = useE2e();

interface ShownSession {
  id: string;
  parent_session_id: string | null;
  children: string[];
  model_config: Record<string, unknown>;
  messages: Message[];
}

/** Today's child-session compaction with a turns tail (`in_place: false`, `tail: turns`). */
const LEGACY_CONFIG = 'compaction:\n  context_window: 3000\n  keep_turns: 2\n  tail: turns\n  in_place: false\n';

/** A tool result of ~350 tokens, so a handful of turns crosses a small context window. */
const NOTES = `${'alpha beta gamma delta '.repeat(60)}\n`;

/**
 * Runs tool-call turns on one session until automatic compaction moves it to a child session
 * (bounded: 12 turns at most). Returns the source session id and the child id.
 */
async function chatUntilCompacted(sandbox: Sandbox, route: string[]): Promise<{ source: string; child: string }> {
  let current: string | null = null;
  for (let turn = 1; turn <= 12; turn += 1) {
    const resume = current ? ['--resume', current] : [];
    const result = await chatJson(sandbox, ['-q', `turn ${turn}: read the file notes.txt`, ...resume, ...route]);
    if (current && result.session_id !== current) return { source: current, child: result.session_id };
    current = result.session_id;
  }
  throw new Error('the session never compacted within 12 turns');
}

/** A summary request: a transcript part, or a merge of part summaries (compaction-summary.ts). */
function isSummaryRequest(request: ReceivedRequest): boolean {
  const messages = (request.body as { messages?: { content?: unknown }[] }).messages ?? [];
  const system = String(messages[0]?.content ?? '');
  return system === COMPACTION_SUMMARY_PROMPT || system === COMPACTION_MERGE_PROMPT;
}

/** The first request after the last summary request: the turn's request on the compacted history. */
function firstAfterSummary(requests: readonly ReceivedRequest[]): ReceivedRequest | undefined {
  const last = requests.findLastIndex(isSummaryRequest);
  expect(last).toBeGreaterThan(0);
  return requests[last + 1];
}

function withoutUsage(message: Message): Message {
  if (message.role !== 'assistant' || !('_usage' in message)) return message;
  const copy: AssistantMessage = { ...message };
  delete copy['_usage'];
  return copy;
}

/**
 * The retained tail as stored in the source (from its second-to-last user message: keep_turns 2),
 * and the same messages in the child (after the head's system prompt, first user message and the summary).
 */
function retainedPair(source: ShownSession, child: ShownSession): { parentTail: Message[]; childTail: Message[] } {
  const userIndexes = source.messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const cut = userIndexes[userIndexes.length - 2] ?? -1;
  expect(cut).toBeGreaterThan(0);
  const parentTail = source.messages.slice(cut);
  return { parentTail, childTail: child.messages.slice(3, 3 + parentTail.length) };
}

function storedAssistants(messages: readonly Message[]): AssistantMessage[] {
  return messages.filter((message): message is AssistantMessage => message.role === 'assistant');
}

/** The checks every persona shares: lineage, head + summary + tail layout, no 400 after, next turn intact. */
async function expectCompactedLineage(
  sandbox: Sandbox,
  source: string,
  child: string,
): Promise<{
  parent: ShownSession;
  compacted: ShownSession;
}> {
  const parent = await showSession<ShownSession>(sandbox, source);
  const compacted = await showSession<ShownSession>(sandbox, child);
  expect(compacted.parent_session_id).toBe(source);
  expect(parent.children).toContain(child);
  expect(compacted.model_config['compaction']).toMatchObject({
    source_session_id: source,
    kept_turns: 2,
    salvaged: false,
  });
  // Head: the stored system prompt and the first user message verbatim; then the summary as a user message.
  expect(compacted.messages[0]?.role).toBe('system');
  expect(compacted.messages[0]).toEqual(parent.messages[0]);
  expect(compacted.messages[1]).toEqual(parent.messages.find((message) => message.role === 'user'));
  expect(compacted.messages[2]?.role).toBe('user');
  expect(String(compacted.messages[2]?.content)).toMatch(new RegExp(`^${escapeRegExp(SUMMARY_MESSAGE_PREFIX)}`));
  // The source session is never mutated by compaction (SPEC §21.1): it keeps every turn.
  expect(parent.messages.length).toBeGreaterThan(compacted.messages.length);
  return { parent, compacted };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('automatic compaction end to end (SPEC §15–§16)', () => {
  it('DeepSeek: compacts, every retained turn keeps reasoning_content on the wire, the next tool turn has no 400, verdicts carry over', async () => {
    // DeepSeek on a loopback URL sends {reasoning_content, reasoning} (SPEC §5 local fallback); this
    // instance rejects `reasoning`, so the session learns a verdict before it compacts. The emulator
    // enforces its own 4,000-token window: had automatic compaction (limit 0.8 × 3,000) not run
    // first, its context-length 400 would show up in the status count below.
    const emulator = await e2e.chat({ persona: 'deepseek', contextWindow: 4000, rejectKeys: ['reasoning'] });
    const sandbox = e2e.sandbox({ notes: NOTES, config: LEGACY_CONFIG });
    const route = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl);
    const { source, child } = await chatUntilCompacted(sandbox, route);
    const { parent, compacted } = await expectCompactedLineage(sandbox, source, child);

    // model_config inherited: the verdict learned before compaction is in the child (SPEC §16).
    const verdicts = parent.model_config['reasoning_rejected_carriers'];
    expect(verdicts).toEqual([['deepseek', '127.0.0.1', 'deepseek-v4-flash', ['reasoning']]]);
    expect(compacted.model_config['reasoning_rejected_carriers']).toEqual(verdicts);

    // Retained turns are the parent's messages, byte for byte (only the private usage anchor goes).
    const { parentTail, childTail } = retainedPair(parent, compacted);
    expect(childTail).toEqual(parentTail.map(withoutUsage));
    expect(storedAssistants(childTail).every((message) => typeof message.reasoning_content === 'string')).toBe(true);

    // On the wire: the first request after the summary carries each retained reasoning_content verbatim.
    const afterSummary = firstAfterSummary(emulator.requests);
    const retainedAssistants = storedAssistants(childTail);
    const sent = assistantsOf(afterSummary?.body);
    expect(sent.map((message) => message['reasoning_content'])).toEqual(
      retainedAssistants.map((message) => message.reasoning_content),
    );
    for (const message of retainedAssistants)
      expect(afterSummary?.raw).toContain(JSON.stringify(message.reasoning_content));

    // The next tool-call turn on the child succeeds, and the model sees every kept turn's reasoning intact.
    const before = emulator.requests.length;
    const answer = await chatJson(sandbox, ['--resume', child, '-q', 'read the file notes.txt', ...route]);
    expect(answer.session_id).toBe(child);
    expect(answer.answer).toMatch(/Reasoning continuity: intact \(\d+\/\d+\)\./);
    const nextRequests = emulator.requests.slice(before);
    expect(nextRequests.map((request) => request.status)).toEqual([200, 200]);
    for (const request of nextRequests) {
      expect(assistantsOf(request.body).every((message) => typeof message['reasoning_content'] === 'string')).toBe(
        true,
      );
      expect(assistantsOf(request.body).some((message) => 'reasoning' in message)).toBe(false);
    }
    // The only 400 of the whole run is the one that taught the verdict on the first tool turn.
    expect(emulator.requests.filter((request) => request.status >= 400)).toHaveLength(1);
  });

  it('OpenRouter: retained turns keep reasoning_details byte-identical in the store and on the wire', async () => {
    const emulator = await e2e.chat({ persona: 'openrouter', contextWindow: 4000 });
    const sandbox = e2e.sandbox({ notes: NOTES, config: LEGACY_CONFIG });
    const route = routeArgs('openrouter', 'anthropic/claude-sonnet-4.5', emulator.baseUrl);
    const { source, child } = await chatUntilCompacted(sandbox, route);
    const { parent, compacted } = await expectCompactedLineage(sandbox, source, child);

    const { parentTail, childTail } = retainedPair(parent, compacted);
    expect(childTail).toEqual(parentTail.map(withoutUsage));
    const retainedAssistants = storedAssistants(childTail);
    expect(retainedAssistants.length).toBeGreaterThan(0);
    for (const [index, message] of storedAssistants(parentTail).entries()) {
      expect(message.reasoning_details?.length).toBeGreaterThan(0);
      expect(retainedAssistants[index]?.reasoning_details).toEqual(message.reasoning_details);
    }

    const afterSummary = firstAfterSummary(emulator.requests);
    expect(afterSummary?.status).toBe(200);
    expect(assistantsOf(afterSummary?.body).map((message) => message['reasoning_details'])).toEqual(
      retainedAssistants.map((message) => message.reasoning_details),
    );
    // Byte-identical: the serialised details (signature and sealed data included) are in the raw request.
    for (const message of retainedAssistants)
      expect(afterSummary?.raw).toContain(JSON.stringify(message.reasoning_details));

    const before = emulator.requests.length;
    const next = await chatJson(sandbox, ['--resume', child, '-q', 'read the file notes.txt', ...route]);
    expect(next.answer).toMatch(/Reasoning continuity: intact \(\d+\/\d+\)\./);
    expect(emulator.requests.slice(before).map((request) => request.status)).toEqual([200, 200]);
    expect(emulator.requests.every((request) => request.status === 200)).toBe(true);
  });

  it('a context-length 400 compacts once and retries the same request, which then succeeds', async () => {
    // No context_window in config: only the provider's own "maximum context length" 400 can trigger it.
    const emulator = await e2e.chat({ persona: 'deepseek', contextWindow: 2500 });
    const sandbox = e2e.sandbox({
      notes: NOTES,
      config: 'compaction:\n  keep_turns: 2\n  tail: turns\n  in_place: false\n',
    });
    const route = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl);
    const { source, child } = await chatUntilCompacted(sandbox, route);
    const compacted = await showSession<ShownSession>(sandbox, child);
    expect(compacted.parent_session_id).toBe(source);
    const statuses = emulator.requests.map((request) => request.status);
    const rejected = statuses.indexOf(400);
    expect(statuses.filter((status) => status >= 400)).toHaveLength(1);
    expect(emulator.requests[rejected]?.raw).not.toContain(SUMMARY_MESSAGE_PREFIX.trim());
    // Right after the 400: the summary request, then the retried request on the compacted child.
    expect(isSummaryRequest(emulator.requests[rejected + 1]!)).toBe(true);
    expect(emulator.requests[rejected + 2]?.status).toBe(200);
    expect(emulator.requests[rejected + 2]?.raw).toContain(SUMMARY_MESSAGE_PREFIX.trim());
  });
});
