/**
 * SPEC §26.4, on-demand compaction in the Anthropic encoder: a summary message that carries an
 * API-written compaction block goes as that block, first, on its own platform only; the kept
 * turns' signed thinking stays bound (the prefix digest continues from where the compaction
 * request's summarised messages ended), and a changed `system` still unbinds it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { bindAnswerBlocks } from '../../src/replay/anthropic-binding-capture.js';
import { BOUND_PREFIX_CHANGED, prefixStartDigest } from '../../src/replay/anthropic-block-binding.js';
import {
  acceptsOnDemandCompaction,
  ANTHROPIC_COMPACTION_KEY,
  type AnthropicCompactionCarrier,
} from '../../src/replay/anthropic-compaction.js';
import { Sha256 } from '../../src/replay/anthropic-sha256.js';
import { prepareAnthropicMessages } from '../../src/transports/anthropic-messages/anthropic-messages-encode.js';
import type { PreparedRequest, TransportRequest } from '../../src/transports/shared/transport.js';

const FABLE: Route = { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-fable-5-1' };
const BLOCK: JsonObject = { type: 'compaction', content: 'Summary: the user said q1.', signature: 'CMP-SIG' };

function request(history: Message[], route: Route = FABLE, compactionOff = false): TransportRequest {
  return {
    route,
    history,
    tools: [],
    reasoning: { enabled: true },
    stream: true,
    learned: { rejectedCarriers: [], rejectedThinkingFingerprints: [], replayEncryptedReasoning: true, compactionOff },
  };
}

let counter = 0;
function answer(prepared: PreparedRequest): AssistantMessage {
  counter += 1;
  const message: AssistantMessage = {
    role: 'assistant',
    content: `a${counter}`,
    anthropic_content_blocks: [
      { type: 'thinking', thinking: `thought ${counter}`, signature: `SIG-${counter}` },
      { type: 'text', text: `a${counter}` },
    ],
    origin: { api: 'anthropic_messages', provider: 'anthropic', host: '', model: FABLE.model },
  };
  return bindAnswerBlocks(message, prepared.body, FABLE.model);
}

/** The carrier of a block the API wrote for the request `compaction` (as the runtime keeps it). */
function carrierAfter(compaction: PreparedRequest): AnthropicCompactionCarrier {
  return {
    block: BLOCK,
    endpointClass: 'direct',
    model: FABLE.model,
    prefixStart: prefixStartDigest(compaction.body['system'], compaction.body['tools']),
    prefixState: compaction.bindingPrefix!.snapshot(),
  };
}

/** system + two turns; then the first turn compacted by the API and the second kept. */
function compacted(system = 'You are Hermes.'): { swapped: Message[]; kept: AssistantMessage } {
  const history: Message[] = [
    { role: 'system', content: system },
    { role: 'user', content: 'q1' },
  ];
  history.push(answer(prepareAnthropicMessages(request(history))));
  // The compaction request: the summarised messages as a turn would send them.
  const compaction = prepareAnthropicMessages(request(history));
  history.push({ role: 'user', content: 'q2' });
  const kept = answer(prepareAnthropicMessages(request(history)));
  const carrier = carrierAfter(compaction);
  const summary = { role: 'user', content: 'Summary: q1', [ANTHROPIC_COMPACTION_KEY]: carrier } as unknown as Message;
  return {
    swapped: [history[0]!, summary, { role: 'user', content: 'q2' }, kept, { role: 'user', content: 'q3' }],
    kept,
  };
}

function decisions(prepared: PreparedRequest, field: string): string[] {
  return prepared.decisions
    .filter((decision) => decision.field === field)
    .map((decision) => `${decision.action}: ${decision.reason}`);
}

describe('Sha256 snapshots', () => {
  it('a restored hash continues exactly where the snapshot stopped', () => {
    const text = 'x'.repeat(100);
    const hash = new Sha256().update(text);
    const restored = Sha256.restore(hash.snapshot())!;
    expect(restored.update('tail').hex()).toBe(new Sha256().update(`${text}tail`).hex());
    expect(Sha256.restore('not a snapshot')).toBeUndefined();
  });
});

describe('on-demand compaction in the Anthropic encoder', () => {
  it('the block goes first on its own platform and the kept turn’s signed thinking stays bound', () => {
    const { swapped, kept } = compacted();
    const prepared = prepareAnthropicMessages(request(swapped));
    const messages = prepared.body['messages'] as JsonObject[];
    expect(messages[0]).toEqual({ role: 'assistant', content: [BLOCK] });
    expect(messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'q2' }] });
    expect((messages[2]?.['content'] as JsonObject[])[0]).toEqual({
      type: 'thinking',
      thinking: (kept.anthropic_content_blocks?.[0] as JsonObject)['thinking'],
      signature: (kept.anthropic_content_blocks?.[0] as JsonObject)['signature'],
    });
    expect(decisions(prepared, 'compaction')).toEqual(['kept: compaction block: same platform']);
    expect(decisions(prepared, 'thinking')).toEqual(['kept: signed: same issuer']);
  });

  it('a kept tail that starts with an assistant turn stays a message of its own after the block', () => {
    const history: Message[] = [
      { role: 'system', content: 'You are Hermes.' },
      { role: 'user', content: 'q1' },
    ];
    history.push(answer(prepareAnthropicMessages(request(history))));
    history.push({ role: 'user', content: 'q2' });
    // The compaction request ends on the user message; the answer to it is the kept turn.
    const compaction = prepareAnthropicMessages(request(history));
    const kept = answer(compaction);
    const carrier = carrierAfter(compaction);
    const summary = { role: 'user', content: 'Summary', [ANTHROPIC_COMPACTION_KEY]: carrier } as unknown as Message;
    const prepared = prepareAnthropicMessages(request([history[0]!, summary, kept, { role: 'user', content: 'q3' }]));
    const messages = prepared.body['messages'] as JsonObject[];
    expect(messages.map((message) => message['role'])).toEqual(['assistant', 'assistant', 'user']);
    expect(messages[0]).toEqual({ role: 'assistant', content: [BLOCK] });
    expect(decisions(prepared, 'thinking')).toEqual(['kept: signed: same issuer']);
  });

  it('a changed system prompt unbinds the kept thinking, as the API would', () => {
    const { swapped } = compacted();
    const changed = [{ role: 'system', content: 'You are Hermes, edited.' } as Message, ...swapped.slice(1)];
    const prepared = prepareAnthropicMessages(request(changed));
    expect(decisions(prepared, 'thinking')).toEqual([`dropped: ${BOUND_PREFIX_CHANGED}`]);
  });

  it('on a route with compaction off, or another platform, the summary goes as text, explained', () => {
    const { swapped } = compacted();
    const off = prepareAnthropicMessages(request(swapped, FABLE, true));
    expect(JSON.stringify(off.body['messages'])).not.toContain('"compaction"');
    expect(decisions(off, 'compaction')).toEqual([
      'dropped: compaction block (on-demand compaction not on for this route): its summary goes as text',
    ]);
    expect(decisions(off, 'thinking')).toEqual([`dropped: ${BOUND_PREFIX_CHANGED}`]);
    const vertex: Route = {
      ...FABLE,
      provider: 'google-vertex',
      baseUrl: 'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5',
    };
    const other = prepareAnthropicMessages(request(swapped, vertex));
    expect(decisions(other, 'compaction')[0]).toMatch(/^dropped: compaction block/);
    expect(other.body['compaction']).toBeUndefined();
  });

  it('asks for a summary only where on-demand compaction is on', () => {
    const history: Message[] = [{ role: 'user', content: 'q1' }];
    const asked = prepareAnthropicMessages({ ...request(history), compaction: { instructions: 'Summarise.' } });
    expect(asked.body['compaction']).toEqual({ type: 'summarize', instructions: 'Summarise.' });
    const off = prepareAnthropicMessages({ ...request(history, FABLE, true), compaction: {} });
    expect(off.body['compaction']).toBeUndefined();
    expect(acceptsOnDemandCompaction('claude-opus-5-5')).toBe(true);
    expect(acceptsOnDemandCompaction('claude-sonnet-4-5')).toBe(false);
    expect(acceptsOnDemandCompaction('claude-mythos-preview')).toBe(true);
  });
});
