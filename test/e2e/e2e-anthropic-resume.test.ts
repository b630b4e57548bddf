import { describe, expect, it } from 'vitest';
import {
  type AnthropicEmulator,
  REDACTED_THINKING_TRIGGER,
} from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import {
  asSent,
  carrierText,
  sentThinkingBlocks,
  storedThinkingBlocks,
  type MessageWithBlocks,
} from '../support/carriers.js';
import { chatJson, routeArgs, showSession, useE2e, resumeArgs } from '../support/e2e.js';

/**
 * (SPEC §9.1, §9.3; WIRE.md §2.6): the real `hermes` binary against the
 * Anthropic emulator — a tool loop with thinking, then `--resume`: zero 4xx, signatures and
 * redacted data byte-identical to the stored `anthropic_content_blocks`, and the in-flight-loop
 * rule for a model that does not keep prior thinking.
 */

const e2e = useE2e();

interface ShownSession {
  model_config: Record<string, unknown>;
  messages: MessageWithBlocks[];
}

function routeFor(emulator: AnthropicEmulator, model: string): string[] {
  return routeArgs('anthropic', model, emulator.baseUrl, 'x');
}

describe('hermes chat --provider anthropic, then --resume', () => {
  it('claude-opus-4-8 keeps all prior thinking: the resumed request carries every stored block byte-identical, no 4xx (SPEC §9.1, §9.3)', async () => {
    const emulator = await e2e.anthropic();
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...routeFor(emulator, 'claude-opus-4-8')]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('alpha beta');
    expect(first.answer).toContain('Reasoning continuity: intact (1/1).');

    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, [
      ...resumeArgs(first.session_id, 'thanks'),
      ...routeFor(emulator, 'claude-opus-4-8'),
    ]);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');

    const session = await showSession<ShownSession>(sandbox, first.session_id);
    const stored = storedThinkingBlocks(session);
    // Three assistant turns (tool call, answer, resumed answer); the first two went back on resume.
    expect(stored.map((blocks) => blocks.map((block) => block['type']))).toEqual([
      ['thinking'],
      ['thinking'],
      ['thinking'],
    ]);
    const request = emulator.requests[before];
    expect(sentThinkingBlocks(request?.body)).toEqual(asSent(stored.slice(0, 2)));
    for (const block of stored.slice(0, 2).flat()) expect(request?.raw).toContain(carrierText(block));
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200]);
  });

  it('claude-sonnet-4-5 keeps only the in-flight tool loop: earlier turns lose their thinking, the live loop keeps it byte-identical (SPEC §9.3 LOOP)', async () => {
    const emulator = await e2e.anthropic();
    const sandbox = e2e.sandbox();
    const route = routeFor(emulator, 'claude-sonnet-4-5');
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    // Request 2 answers the tool result: the in-flight loop's tool-call turn keeps its thinking.
    const firstSession = await showSession<ShownSession>(sandbox, first.session_id);
    const firstStored = storedThinkingBlocks(firstSession);
    expect(sentThinkingBlocks(emulator.requests[1]?.body)).toEqual(asSent([firstStored[0] ?? []]));

    // Resume with a second tool loop: request 3 (new user turn) sends no prior thinking;
    // request 4 (tool result of the new loop) sends only the new loop's thinking.
    const resumed = await chatJson(sandbox, [
      ...resumeArgs(first.session_id, 'read the file notes.txt again'),
      ...route,
    ]);
    expect(resumed.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const stored = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id));
    expect(stored.length).toBe(4);
    expect(sentThinkingBlocks(emulator.requests[2]?.body)).toEqual([[], []]);
    expect(sentThinkingBlocks(emulator.requests[3]?.body)).toEqual(asSent([[], [], stored[2] ?? []]));
    for (const block of stored[2] ?? []) expect(emulator.requests[3]?.raw).toContain(carrierText(block));
    for (const block of [...(stored[0] ?? []), ...(stored[1] ?? [])])
      expect(emulator.requests[3]?.raw).not.toContain(carrierText(block));
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200, 200]);
  });

  it('redacted_thinking round-trips: the resumed request carries every stored data blob byte-identical (WIRE.md §2.2)', async () => {
    const emulator = await e2e.anthropic();
    const sandbox = e2e.sandbox();
    const route = routeFor(emulator, 'claude-opus-4-8');
    const first = await chatJson(sandbox, ['-q', `read the file notes.txt ${REDACTED_THINKING_TRIGGER}`, ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    const stored = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id));
    expect(stored.slice(0, 2).map((blocks) => blocks.map((block) => block['type']))).toEqual([
      ['redacted_thinking'],
      ['redacted_thinking'],
    ]);
    const request = emulator.requests[before];
    expect(sentThinkingBlocks(request?.body)).toEqual(asSent(stored.slice(0, 2)));
    for (const block of stored.slice(0, 2).flat()) expect(request?.raw).toContain(carrierText(block));
    expect(emulator.requests.every((received) => received.status === 200)).toBe(true);
  });
});
