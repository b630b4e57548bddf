import { describe, expect, it } from 'vitest';
import { decodeServerSentEvents } from '../../../src/transports/shared/transport-sse-reader.js';
import { decodeResponsesResponse, ResponsesStreamDecoder } from '../../../src/transports/responses/responses-decode.js';
import type { ResponsesCaptureContext } from '../../../src/transports/responses/responses-decode.js';
import { bodyFixtures, streamFixtures } from './responses-fixture-helpers.js';
import { seededRandom, splitRandomly } from '../../support/random.js';
import type { StreamFixture } from './responses-fixture-helpers.js';

/**
 * WIRE.md §5.2–§5.3, SPEC §12 capture: every recorded Responses stream and body is decoded, whole
 * and at random byte splits, and the stored `codex_reasoning_items` are exactly the
 * `output_item.done` reasoning items (never the `.added` copy), stamped with their issuer.
 */

const CONTEXT: ResponsesCaptureContext = {
  origin: { api: 'codex_responses', provider: 'openai', host: '', model: 'gpt-5.4' },
  issuerKind: 'other:https://api.openai.com/v1',
};

type Item = Record<string, unknown>;

/** Independent oracle: the `.done` items by output_index, reasoning stamped as SPEC §12 says. */
function expectedReasoningItems(outputItems: Item[]): Item[] {
  const expected: Item[] = [];
  let pending: Item[] = [];
  for (const item of outputItems) {
    if (item['type'] === 'reasoning') {
      if (String(item['id'] ?? '').startsWith('rs_tmp_')) continue;
      const stored = { ...item, _issuer_kind: CONTEXT.issuerKind };
      expected.push(stored);
      pending.push(stored);
    } else if (item['type'] === 'function_call') {
      for (const stored of pending) stored['_precedes_call_id'] = item['call_id'];
      pending = [];
    } else if (item['type'] === 'message') pending = [];
  }
  return expected;
}

function doneItems(fixture: StreamFixture): Item[] {
  const byIndex = new Map<number, Item>();
  for (const event of fixture.events) {
    if (event['type'] === 'response.output_item.done')
      byIndex.set(event['output_index'] as number, event['item'] as Item);
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
}

function decodeSplit(fixture: StreamFixture, pieces: (Uint8Array | string)[]) {
  const decoder = new ResponsesStreamDecoder(CONTEXT);
  const events = decodeServerSentEvents(decoder, pieces);
  const terminal = events.find((event) => event.type === 'finish' || event.type === 'error')!;
  const assembled = decoder.assemble();
  // The terminal message is the assembled one plus its finish reason.
  if (terminal.type === 'finish') assembled.finish_reason = terminal.message.finish_reason ?? '';
  return { events, terminal, assembled };
}

const streams = streamFixtures();
const bodies = bodyFixtures();

describe('responses stream decoder over recorded fixtures (WIRE.md §5.3)', () => {
  it('finds the recorded streams and bodies', () => {
    expect(streams.length).toBeGreaterThanOrEqual(12);
    expect(bodies.length).toBeGreaterThanOrEqual(10);
  });

  for (const fixture of streams) {
    it(`${fixture.name}: stores the .done reasoning items, whole and at random splits`, () => {
      const expected = expectedReasoningItems(doneItems(fixture));
      const completes = fixture.events.some((event) => event['type'] === 'response.completed');
      const whole = decodeSplit(fixture, [fixture.sse]);
      const bytes = new TextEncoder().encode(fixture.sse);
      for (const run of [
        whole,
        ...[1, 2, 3, 4, 5].map((seed) => decodeSplit(fixture, splitRandomly(bytes, seededRandom(seed)))),
      ]) {
        expect(run.assembled.codex_reasoning_items ?? []).toEqual(expected);
        expect(run.terminal.type).toBe(completes ? 'finish' : 'error');
        if (run.terminal.type === 'finish') expect(run.terminal.message).toEqual(run.assembled);
        const reasoningText = run.events
          .flatMap((event) => (event.type === 'reasoning-delta' ? [event.text] : []))
          .join('');
        expect(reasoningText).toBe(run.assembled.reasoning ?? '');
        // Live text is forwarded exactly as recorded; the stored text is the `.done` copy (the
        // anonymised Azure recording has deltas that differ from its final text).
        const text = run.events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
        const recordedDeltas = fixture.events.filter((event) => event['type'] === 'response.output_text.delta');
        expect(text).toBe(
          recordedDeltas.length > 0
            ? recordedDeltas.map((event) => event['delta']).join('')
            : (run.assembled.content ?? ''),
        );
        expect(run.assembled).toEqual(whole.assembled);
      }
    });
  }

  it('keeps the .done encrypted_content, not the provisional .added one (WIRE.md §5.3)', () => {
    const fixture = streams.find(
      (candidate) => candidate.name === 'openai-responses/vercel-reasoning-encrypted-content.1.chunks.txt#0',
    );
    expect(fixture).toBeDefined();
    const run = decodeSplit(fixture as StreamFixture, [(fixture as StreamFixture).sse]);
    const [item] = run.assembled.codex_reasoning_items ?? [];
    expect(String(item?.['encrypted_content']).slice(0, 16)).toBe('gAAAAABpPDIVOKrs');
    expect(item?.['_precedes_call_id']).toBe('call_AB6AaRZ1FYZB2RwS6A5vbdqn');
    expect(run.assembled.tool_calls).toEqual([
      {
        id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
        call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
        response_item_id: 'fc_01830d662ab3856501693c32151234819091cfca267e98cc5f',
        type: 'function',
        function: { name: 'calculator', arguments: '{"a":12,"b":7,"op":"add"}' },
      },
    ]);
    expect(run.assembled.content).toBeNull();
    expect(run.assembled.finish_reason).toBe('tool_calls');
    expect(run.assembled.origin).toEqual(CONTEXT.origin);
  });

  it('keys items on output_index when Copilot rotates ids (WIRE.md §5.3)', () => {
    const fixture = streams.find((candidate) => candidate.name.includes('github-copilot-id-rotation')) as StreamFixture;
    const run = decodeSplit(fixture, [fixture.sse]);
    expect(run.assembled.codex_reasoning_items?.map((item) => item['id'])).toEqual(['capture-id-8']);
    expect(run.assembled.codex_message_items).toEqual([
      { type: 'message', id: 'capture-id-68', phase: 'final_answer', _issuer_kind: CONTEXT.issuerKind },
    ]);
    expect(run.assembled.reasoning).toBe('**Counting character occurrences**');
  });

  it('never stores rs_tmp_ items but keeps their readable reasoning (SPEC §12, OpenRouter raw CoT)', () => {
    const fixture = streams.find((candidate) => candidate.name.includes('openrouter-raw-cot')) as StreamFixture;
    const run = decodeSplit(fixture, [fixture.sse]);
    expect(run.assembled.codex_reasoning_items).toBeUndefined();
    expect(run.assembled.reasoning?.startsWith('The user asks')).toBe(true);
  });

  it('a stream cut before response.completed ends with an error event, not a half message', () => {
    const fixture = streams.find((candidate) => candidate.name.includes('missing-reasoning-summary')) as StreamFixture;
    const run = decodeSplit(fixture, [fixture.sse]);
    expect(run.terminal.type).toBe('error');
    expect(run.assembled.codex_reasoning_items?.length).toBe(1);
  });
});

describe('responses non-streaming decoder over recorded bodies (WIRE.md §5.2)', () => {
  for (const fixture of bodies) {
    it(`${fixture.name}: stores every output reasoning item verbatim`, () => {
      const terminal = decodeResponsesResponse(fixture.body, CONTEXT);
      expect(terminal.type).toBe('finish');
      if (terminal.type !== 'finish') return;
      const output = (fixture.body['output'] as Item[]) ?? [];
      expect(terminal.message.codex_reasoning_items ?? []).toEqual(expectedReasoningItems(output));
      const calls = output.filter((item) => item['type'] === 'function_call');
      expect((terminal.message.tool_calls ?? []).map((call) => call.call_id)).toEqual(
        calls.map((call) => call['call_id']),
      );
      expect(terminal.usage?.inputTokens).toBe((fixture.body['usage'] as { input_tokens: number }).input_tokens);
    });
  }
});
