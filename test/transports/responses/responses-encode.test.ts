import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../../src/core/message.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { prepareResponses } from '../../../src/transports/responses/responses-encode.js';
import { NOTHING_LEARNED } from '../../../src/replay/replay-route-profile.js';
import type { CarrierDecision, DecisionAction } from '../../../src/replay/replay-types.js';

/**
 * SPEC §12 replay rules and WIRE.md §5.1/§5.4 request shape, asserted on exact bodies.
 */

const OPENAI = 'other:https://api.openai.com/v1';
const ORIGIN = { api: 'codex_responses' as const, provider: 'openai', host: 'api.openai.com', model: 'gpt-5.4' };
const TOOL = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
};

function reasoningItem(id: string, encrypted: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'reasoning',
    id,
    encrypted_content: encrypted,
    summary: [{ type: 'summary_text', text: `thought ${id}` }],
    _issuer_kind: OPENAI,
    ...extra,
  };
}

/** A replay decision (SPEC §23.3) on a five-byte value, the size of every blob in these histories. */
function decision(messageIndex: number, field: string, action: DecisionAction, reason: string): CarrierDecision {
  return { messageIndex, field, action, reason, bytes: 5 };
}

/** A tool loop: turn 1 calls read_file with reasoning, turn 2 answers with reasoning. */
function toolLoopHistory(): Message[] {
  return [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'read the file notes.txt' },
    {
      role: 'assistant',
      content: null,
      reasoning: 'thought rs_A',
      tool_calls: [
        {
          id: 'call_1',
          call_id: 'call_1',
          response_item_id: 'fc_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
        },
      ],
      codex_reasoning_items: [reasoningItem('rs_A', 'ENC_A', { _precedes_call_id: 'call_1' })],
      finish_reason: 'tool_calls',
      origin: ORIGIN,
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
    {
      role: 'assistant',
      content: 'It says hello.',
      codex_reasoning_items: [reasoningItem('rs_B', 'ENC_B')],
      codex_message_items: [{ type: 'message', id: 'msg_B', phase: 'final_answer', _issuer_kind: OPENAI }],
      finish_reason: 'stop',
      origin: ORIGIN,
    },
    { role: 'user', content: 'thanks' },
  ];
}

function request(history: Message[], overrides: Partial<TransportRequest> = {}): TransportRequest {
  return {
    route: { api: 'codex_responses', provider: 'openai', model: 'gpt-5.4', baseUrl: 'https://api.openai.com/v1' },
    history,
    tools: [TOOL],
    reasoning: { enabled: true, effort: 'medium' },
    ...overrides,
  };
}

/** The leading system message travels as `instructions`, not as an input item. */
const SAME_ISSUER_INPUT = [
  { role: 'user', content: 'read the file notes.txt' },
  { type: 'reasoning', encrypted_content: 'ENC_A', summary: [{ type: 'summary_text', text: 'thought rs_A' }] },
  { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'hello' },
  { type: 'reasoning', encrypted_content: 'ENC_B', summary: [{ type: 'summary_text', text: 'thought rs_B' }] },
  {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'It says hello.' }],
    id: 'msg_B',
    phase: 'final_answer',
  },
  { role: 'user', content: 'thanks' },
];

describe('prepareResponses request shape (WIRE.md §5.1)', () => {
  it('stateless body: store false, include encrypted content, reasoning summary auto, flat tools', () => {
    const prepared = prepareResponses(request(toolLoopHistory(), { maxTokens: 1000 }));
    expect(prepared.url).toBe('https://api.openai.com/v1/responses');
    expect(prepared.routeKey).toBe('openai|api.openai.com|gpt-5.4');
    expect(prepared.carriersSent).toEqual([]);
    expect(prepared.body).toEqual({
      model: 'gpt-5.4',
      instructions: 'You are terse.',
      input: SAME_ISSUER_INPUT,
      tools: [{ type: 'function', name: 'read_file', description: 'Read a file', parameters: TOOL.parameters }],
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
      stream: true,
      max_output_tokens: 1000,
    });
    expect(Object.keys(prepared.body)).toEqual([
      'model',
      'instructions',
      'input',
      'tools',
      'reasoning',
      'include',
      'store',
      'stream',
      'max_output_tokens',
    ]);
  });

  it('reasoning off: no reasoning parameter and no include; every effort keeps its own word when on', () => {
    const off = prepareResponses(
      request([{ role: 'user', content: 'hi' }], { tools: [], reasoning: { enabled: false }, stream: false }),
    );
    expect(off.body).toEqual({
      model: 'gpt-5.4',
      input: [{ role: 'user', content: 'hi' }],
      store: false,
      stream: false,
    });
    // openai@6.49.0 `ReasoningEffort`: none minimal low medium high xhigh max, all seven.
    for (const effort of ['none', 'minimal', 'xhigh', 'max'] as const) {
      const on = prepareResponses(
        request([{ role: 'user', content: 'hi' }], { tools: [], reasoning: { enabled: true, effort } }),
      );
      expect(on.body['reasoning']).toEqual({ effort, summary: 'auto' });
    }
  });

  it('provider defaults resolve the endpoint (xAI, DeepSeek, OpenRouter, Copilot)', () => {
    const table: [string, string][] = [
      ['xai', 'https://api.x.ai/v1/responses'],
      ['deepseek', 'https://api.deepseek.com/responses'],
      ['openrouter', 'https://openrouter.ai/api/v1/responses'],
      ['copilot', 'https://api.githubcopilot.com/responses'],
    ];
    for (const [provider, url] of table) {
      expect(prepareResponses(request([], { route: { api: 'codex_responses', provider, model: 'm' } })).url).toBe(url);
    }
  });
});

describe('prepareResponses replay rules (SPEC §12)', () => {
  it('same issuer: each item right before what it preceded, ids and _issuer_kind dropped, message id + phase kept', () => {
    const prepared = prepareResponses(request(toolLoopHistory()));
    expect(prepared.body['input']).toEqual(SAME_ISSUER_INPUT);
    expect(prepared.decisions).toEqual([
      { messageIndex: 2, field: 'codex_reasoning_items[0]', action: 'kept', reason: 'same issuer', bytes: 5 },
      { messageIndex: 4, field: 'codex_reasoning_items[0]', action: 'kept', reason: 'same issuer', bytes: 5 },
      { messageIndex: 4, field: 'codex_message_items.id', action: 'kept', reason: 'message item id', bytes: 5 },
    ]);
  });

  it('another issuer (xAI): no foreign blob and no foreign message id travels (SPEC §23.2)', () => {
    const prepared = prepareResponses(
      request(toolLoopHistory(), { route: { api: 'codex_responses', provider: 'xai', model: 'grok-4' } }),
    );
    expect(prepared.body['input']).toEqual([
      { role: 'user', content: 'read the file notes.txt' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'hello' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'It says hello.' }],
        phase: 'final_answer',
      },
      { role: 'user', content: 'thanks' },
    ]);
    expect(prepared.decisions.map((decision) => [decision.action, decision.reason])).toEqual([
      ['dropped', `foreign issuer ${OPENAI}`],
      ['dropped', `foreign issuer ${OPENAI}`],
      ['dropped', `foreign issuer ${OPENAI}`],
    ]);
  });

  it('GitHub: message ids never sent, even from GitHub itself', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'a',
        codex_reasoning_items: [{ ...reasoningItem('rs_G', 'ENC_G'), _issuer_kind: 'github_responses' }],
        codex_message_items: [
          { type: 'message', id: 'msg_G', phase: 'final_answer', _issuer_kind: 'github_responses' },
        ],
      },
    ];
    const prepared = prepareResponses(
      request(history, { route: { api: 'codex_responses', provider: 'copilot', model: 'gpt-5' } }),
    );
    expect(prepared.body['input']).toEqual([
      { role: 'user', content: 'q' },
      { type: 'reasoning', encrypted_content: 'ENC_G', summary: [{ type: 'summary_text', text: 'thought rs_G' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }], phase: 'final_answer' },
    ]);
    expect(prepared.decisions[1]).toEqual(
      decision(1, 'codex_message_items.id', 'dropped', 'GitHub rejects message ids'),
    );
  });

  it('a reasoning-only turn is followed by an empty assistant message item', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', codex_reasoning_items: [reasoningItem('rs_C', 'ENC_C')] },
      { role: 'user', content: 'go on' },
    ];
    expect(prepareResponses(request(history)).body['input']).toEqual([
      { role: 'user', content: 'q' },
      { type: 'reasoning', encrypted_content: 'ENC_C', summary: [{ type: 'summary_text', text: 'thought rs_C' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '' }] },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('duplicates by id, rs_tmp_ items, items without encrypted_content and over-long message ids are dropped', () => {
    const longId = `msg_${'x'.repeat(70)}`;
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a1', codex_reasoning_items: [reasoningItem('rs_D', 'ENC_D')] },
      { role: 'user', content: 'q2' },
      {
        role: 'assistant',
        content: 'a2',
        codex_reasoning_items: [
          reasoningItem('rs_D', 'ENC_D'),
          reasoningItem('rs_tmp_1', 'ENC_T'),
          { type: 'reasoning', id: 'rs_E', encrypted_content: null, summary: [], _issuer_kind: OPENAI },
        ],
        codex_message_items: [{ type: 'message', id: longId, _issuer_kind: OPENAI }],
      },
    ];
    const prepared = prepareResponses(request(history));
    expect(prepared.body['input']).toEqual([
      { role: 'user', content: 'q' },
      { type: 'reasoning', encrypted_content: 'ENC_D', summary: [{ type: 'summary_text', text: 'thought rs_D' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a1' }] },
      { role: 'user', content: 'q2' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a2' }] },
    ]);
    expect(prepared.decisions.filter((entry) => entry.messageIndex === 3).map((entry) => entry.reason)).toEqual([
      'duplicate reasoning item id',
      'temporary rs_tmp_ item',
      'no encrypted_content (store:false cannot resolve ids)',
      'id longer than 64 characters',
    ]);
  });

  it('compaction checkpoints superseded by a newer one are dropped (SPEC §16)', () => {
    const history: Message[] = [
      {
        role: 'assistant',
        content: 'summary 1',
        codex_reasoning_items: [{ type: 'compaction', encrypted_content: 'CMP_1', _issuer_kind: OPENAI }],
      },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'summary 2',
        codex_reasoning_items: [{ type: 'compaction', encrypted_content: 'CMP_2', _issuer_kind: OPENAI }],
      },
    ];
    // An eligible route (SPEC §24.7): the newest checkpoint travels and stands for what precedes it.
    const route = {
      api: 'codex_responses' as const,
      provider: 'openai',
      model: 'gpt-5.6',
      baseUrl: 'https://api.openai.com/v1',
    };
    const prepared = prepareResponses(request(history, { route }));
    expect(prepared.body['input']).toEqual([
      { type: 'compaction', encrypted_content: 'CMP_2' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'summary 2' }] },
    ]);
    expect(prepared.decisions).toEqual([
      decision(0, 'codex_reasoning_items[0]', 'dropped', 'compaction checkpoint superseded by a newer one'),
      decision(2, 'codex_reasoning_items[0]', 'kept', 'newest compaction checkpoint'),
    ]);
  });

  it('kill switch: replayEncryptedReasoning false drops every encrypted item, with a reason each', () => {
    const prepared = prepareResponses(
      request(toolLoopHistory(), { learned: { ...NOTHING_LEARNED, replayEncryptedReasoning: false } }),
    );
    expect((prepared.body['input'] as { type?: string }[]).filter((item) => item.type === 'reasoning')).toEqual([]);
    expect(prepared.decisions.filter((entry) => entry.field.startsWith('codex_reasoning_items'))).toEqual([
      decision(2, 'codex_reasoning_items[0]', 'dropped', 'encrypted replay off after invalid_encrypted_content'),
      decision(4, 'codex_reasoning_items[0]', 'dropped', 'encrypted replay off after invalid_encrypted_content'),
    ]);
  });

  it('parallel calls: each reasoning item goes right before the call it preceded', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{}' } },
          { id: 'call_b', call_id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"x":1}' } },
        ],
        codex_reasoning_items: [
          reasoningItem('rs_1', 'E1', { _precedes_call_id: 'call_a' }),
          reasoningItem('rs_2', 'E2', { _precedes_call_id: 'call_b' }),
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'A' },
      { role: 'tool', tool_call_id: 'call_b', content: 'B' },
    ];
    expect(prepareResponses(request(history)).body['input']).toEqual([
      { role: 'user', content: 'q' },
      { type: 'reasoning', encrypted_content: 'E1', summary: [{ type: 'summary_text', text: 'thought rs_1' }] },
      { type: 'function_call', call_id: 'call_a', name: 'read_file', arguments: '{}' },
      { type: 'reasoning', encrypted_content: 'E2', summary: [{ type: 'summary_text', text: 'thought rs_2' }] },
      { type: 'function_call', call_id: 'call_b', name: 'read_file', arguments: '{"x":1}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'A' },
      { type: 'function_call_output', call_id: 'call_b', output: 'B' },
    ]);
  });

  it('never mutates the history (SPEC §21.1)', () => {
    const history = toolLoopHistory();
    const before = structuredClone(history);
    const prepared = prepareResponses(request(history));
    expect(history).toEqual(before);
    // The wire copy is detached: editing it leaves the stored item alone.
    const input = prepared.body['input'] as { summary?: { text: string }[] }[];
    const first = input.find((item) => item.summary !== undefined);
    if (first?.summary?.[0]) first.summary[0].text = 'changed';
    expect(
      ((history[2] as AssistantMessage).codex_reasoning_items?.[0] as { summary: { text: string }[] }).summary[0]?.text,
    ).toBe('thought rs_A');
  });

  it('accepts a plain TransportRequest (kill switch defaults to on)', () => {
    const plain: TransportRequest = request(toolLoopHistory());
    expect(prepareResponses(plain).body['input']).toEqual(SAME_ISSUER_INPUT);
  });
});
