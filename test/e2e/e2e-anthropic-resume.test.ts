import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnthropicEmulator,
  REDACTED_THINKING_TRIGGER,
  startAnthropicEmulator,
} from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { makeSandbox, parseJson, runHermes } from '../support/e2e.js';

/**
 * Issue 6, Done when (SPEC §9.1, §9.3; WIRE.md §2.6): the real `hermes` binary against the
 * Anthropic emulator — a tool loop with thinking, then `--resume`: zero 4xx, signatures and
 * redacted data byte-identical to the stored `anthropic_content_blocks`, and the in-flight-loop
 * rule for a model that does not keep prior thinking.
 */

let emulator: AnthropicEmulator | null = null;
afterEach(async () => {
  await emulator?.close();
  emulator = null;
});

interface ChatJson {
  session_id: string;
  answer: string;
  tool_calls: { name: string; result: string }[];
}

type Block = Record<string, unknown>;

interface ShownMessage {
  role: string;
  anthropic_content_blocks?: Block[];
}

interface ShownSession {
  model_config: Record<string, unknown>;
  messages: ShownMessage[];
}

async function showSession(sandbox: { home: string; workspace: string }, sessionId: string): Promise<ShownSession> {
  return parseJson<ShownSession>(await runHermes(['sessions', 'show', sessionId, '--json'], sandbox));
}

/** Stored thinking / redacted_thinking blocks of every assistant turn, in order. */
function storedReasoningBlocks(session: ShownSession): Block[][] {
  return session.messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      (message.anthropic_content_blocks ?? []).filter((block) => String(block['type']).endsWith('thinking')),
    );
}

/** Thinking / redacted_thinking blocks of every assistant message in a request body, in order. */
function sentReasoningBlocks(body: unknown): Block[][] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      (Array.isArray(message.content) ? (message.content as Block[]) : []).filter((block) =>
        String(block['type']).endsWith('thinking'),
      ),
    );
}

/** The exact JSON text a signed block has in the stored record; must occur in the raw request bytes. */
function carrierText(block: Block): string {
  return block['type'] === 'thinking'
    ? `"signature":${JSON.stringify(block['signature'])}`
    : `"data":${JSON.stringify(block['data'])}`;
}

function routeFor(model: string): string[] {
  return ['--provider', 'anthropic', '--model', model, '--base-url', emulator?.baseUrl ?? '', '--api-key', 'x'];
}

describe('hermes chat --provider anthropic, then --resume (issue 6)', () => {
  it('claude-opus-4-8 keeps all prior thinking: the resumed request carries every stored block byte-identical, no 4xx (SPEC §9.1, §9.3)', async () => {
    emulator = await startAnthropicEmulator();
    const sandbox = makeSandbox();
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...routeFor('claude-opus-4-8')], sandbox),
    );
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('alpha beta');
    expect(first.answer).toContain('Reasoning continuity: intact (1/1).');

    const before = emulator.requests.length;
    const resumed = parseJson<ChatJson>(
      await runHermes(
        ['chat', '--resume', first.session_id, '-q', 'thanks', '--json', ...routeFor('claude-opus-4-8')],
        sandbox,
      ),
    );
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');

    const session = await showSession(sandbox, first.session_id);
    const stored = storedReasoningBlocks(session);
    // Three assistant turns (tool call, answer, resumed answer); the first two went back on resume.
    expect(stored.map((blocks) => blocks.map((block) => block['type']))).toEqual([
      ['thinking'],
      ['thinking'],
      ['thinking'],
    ]);
    const request = emulator.requests[before];
    expect(sentReasoningBlocks(request?.body)).toEqual(stored.slice(0, 2));
    for (const block of stored.slice(0, 2).flat()) expect(request?.raw).toContain(carrierText(block));
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200]);
  });

  it('claude-sonnet-4-5 keeps only the in-flight tool loop: earlier turns lose their thinking, the live loop keeps it byte-identical (SPEC §9.3 LOOP)', async () => {
    emulator = await startAnthropicEmulator();
    const sandbox = makeSandbox();
    const route = routeFor('claude-sonnet-4-5');
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    // Request 2 answers the tool result: the in-flight loop's tool-call turn keeps its thinking.
    const firstSession = await showSession(sandbox, first.session_id);
    const firstStored = storedReasoningBlocks(firstSession);
    expect(sentReasoningBlocks(emulator.requests[1]?.body)).toEqual([firstStored[0]]);

    // Resume with a second tool loop: request 3 (new user turn) sends no prior thinking;
    // request 4 (tool result of the new loop) sends only the new loop's thinking.
    const resumed = parseJson<ChatJson>(
      await runHermes(
        ['chat', '--resume', first.session_id, '-q', 'read the file notes.txt again', '--json', ...route],
        sandbox,
      ),
    );
    expect(resumed.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const stored = storedReasoningBlocks(await showSession(sandbox, first.session_id));
    expect(stored.length).toBe(4);
    expect(sentReasoningBlocks(emulator.requests[2]?.body)).toEqual([[], []]);
    expect(sentReasoningBlocks(emulator.requests[3]?.body)).toEqual([[], [], stored[2]]);
    for (const block of stored[2] ?? []) expect(emulator.requests[3]?.raw).toContain(carrierText(block));
    for (const block of [...(stored[0] ?? []), ...(stored[1] ?? [])])
      expect(emulator.requests[3]?.raw).not.toContain(carrierText(block));
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200, 200]);
  });

  it('redacted_thinking round-trips: the resumed request carries every stored data blob byte-identical (WIRE.md §2.2)', async () => {
    emulator = await startAnthropicEmulator();
    const sandbox = makeSandbox();
    const route = routeFor('claude-opus-4-8');
    const first = parseJson<ChatJson>(
      await runHermes(
        ['chat', '-q', `read the file notes.txt ${REDACTED_THINKING_TRIGGER}`, '--json', ...route],
        sandbox,
      ),
    );
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const before = emulator.requests.length;
    const resumed = parseJson<ChatJson>(
      await runHermes(['chat', '--resume', first.session_id, '-q', 'thanks', '--json', ...route], sandbox),
    );
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    const stored = storedReasoningBlocks(await showSession(sandbox, first.session_id));
    expect(stored.slice(0, 2).map((blocks) => blocks.map((block) => block['type']))).toEqual([
      ['redacted_thinking'],
      ['redacted_thinking'],
    ]);
    const request = emulator.requests[before];
    expect(sentReasoningBlocks(request?.body)).toEqual(stored.slice(0, 2));
    for (const block of stored.slice(0, 2).flat()) expect(request?.raw).toContain(carrierText(block));
    expect(emulator.requests.every((received) => received.status === 200)).toBe(true);
  });
});
