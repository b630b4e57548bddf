import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/message.js';
import { decodeResponsesResponse, ResponsesStreamDecoder } from '../../../src/transports/responses/responses-decode.js';
import type { ResponsesCaptureContext } from '../../../src/transports/responses/responses-decode.js';
import { prepareResponses } from '../../../src/transports/responses/responses-encode.js';

/**
 * SPEC §24.6: a Responses output with reasoning but neither a message nor a function call is an
 * `incomplete` turn (`finish_reason.raw` = `incomplete`), which the runtime continues; and
 * SPEC §24.4 on the capture → replay path: output-only keys stored with an item never travel.
 */

const ISSUER = 'other:https://api.openai.com/v1';
const CONTEXT: ResponsesCaptureContext = {
  origin: { api: 'codex_responses', provider: 'openai', host: 'api.openai.com', model: 'gpt-5.4' },
  issuerKind: ISSUER,
};

const reasoning = (id: string) => ({
  type: 'reasoning',
  id,
  encrypted_content: 'gAAAAABENC',
  summary: [{ type: 'summary_text', text: `thinking ${id}` }],
});
const message = { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] };
const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_file', arguments: '{}' };

function finishOf(body: Record<string, unknown>) {
  const terminal = decodeResponsesResponse(body, CONTEXT);
  if (terminal.type !== 'finish') throw new Error('expected a finish');
  return { reason: terminal.finishReason, stored: terminal.message.finish_reason, message: terminal.message };
}

describe('Responses reasoning-only output is incomplete (SPEC §24.6)', () => {
  const table: [name: string, body: Record<string, unknown>, unified: string, raw: string, stored: string][] = [
    [
      'summary-only reasoning, status completed',
      { status: 'completed', output: [reasoning('rs_1')] },
      'other',
      'incomplete',
      'incomplete',
    ],
    [
      'rs_tmp_ reasoning only (never stored)',
      { status: 'completed', output: [reasoning('rs_tmp_1')] },
      'other',
      'incomplete',
      'incomplete',
    ],
    [
      'status incomplete, reason max_output_tokens, reasoning only',
      { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [reasoning('rs_2')] },
      'length',
      'incomplete',
      'incomplete',
    ],
    // Not §24.6: a message or a call is there, so the turn is what its status says.
    [
      'max_output_tokens with a partial message',
      {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [reasoning('rs_3'), message],
      },
      'length',
      'max_output_tokens',
      'length',
    ],
    [
      'reasoning then a message',
      { status: 'completed', output: [reasoning('rs_4'), message] },
      'stop',
      'completed',
      'stop',
    ],
    [
      'reasoning then a call',
      { status: 'completed', output: [reasoning('rs_5'), call] },
      'tool-calls',
      'completed',
      'tool_calls',
    ],
  ];
  for (const [name, body, unified, raw, stored] of table) {
    it(`${name} → ${unified} / raw ${raw}`, () => {
      const finish = finishOf(body);
      expect(finish.reason).toEqual({ unified, raw });
      expect(finish.stored).toBe(stored);
    });
  }

  it('streamed: response.incomplete after a reasoning-only output is raw incomplete too', () => {
    const decoder = new ResponsesStreamDecoder(CONTEXT);
    const item = reasoning('rs_s');
    decoder.push(
      JSON.stringify({ type: 'response.output_item.added', output_index: 0, item: { ...item, summary: [] } }),
    );
    decoder.push(JSON.stringify({ type: 'response.output_item.done', output_index: 0, item }));
    const events = decoder.push(
      JSON.stringify({
        type: 'response.incomplete',
        response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [item] },
      }),
    );
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'length', raw: 'incomplete' },
      message: { content: '', finish_reason: 'incomplete', reasoning: 'thinking rs_s' },
    });
  });
});

describe('capture keeps the item verbatim, replay sends input-schema keys only (SPEC §24.4)', () => {
  it('a DeepSeek-shaped item with status (and a response_id a client stored) replays without them', () => {
    // WIRE.md §1.2: DeepSeek's Responses output item carries `status: "completed"` and raw `content`.
    const output = {
      type: 'reasoning',
      id: 'rs_ds',
      status: 'completed',
      encrypted_content: 'gAAAAABDS',
      content: [{ type: 'reasoning_text', text: 'raw thought' }],
      summary: [],
    };
    const { message: captured } = finishOf({ status: 'completed', output: [output, message] });
    expect(captured.codex_reasoning_items).toEqual([{ ...output, _issuer_kind: ISSUER }]);
    const stored = {
      ...captured,
      codex_reasoning_items: [{ ...captured.codex_reasoning_items?.[0], response_id: 'resp_9' }],
    };
    const history: Message[] = [{ role: 'user', content: 'q' }, stored, { role: 'user', content: 'again' }];
    const body = prepareResponses({
      route: { api: 'codex_responses', provider: 'openai', model: 'gpt-5.4', baseUrl: 'https://api.openai.com/v1' },
      history,
      tools: [],
      reasoning: { enabled: true },
    }).body;
    expect((body['input'] as Record<string, unknown>[])[1]).toEqual({
      type: 'reasoning',
      encrypted_content: 'gAAAAABDS',
      summary: [],
      content: [{ type: 'reasoning_text', text: 'raw thought' }],
    });
    expect(JSON.stringify(body)).not.toMatch(/"status"|"response_id"|_issuer_kind/);
  });
});
