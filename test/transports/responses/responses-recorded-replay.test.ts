import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/message.js';
import { decodeResponsesResponse } from '../../../src/transports/responses/responses-decode.js';
import { prepareResponses } from '../../../src/transports/responses/responses-encode.js';
import { FIXTURES_DIRECTORY } from './responses-fixture-helpers.js';

/**
 * WIRE.md §5.4 [F]: what a real client sent back to OpenAI on turn 2, and OpenAI accepted, is
 * what Hermes sends from its own stored turn 1, except the item ids that `store: false` forbids
 * (WIRE.md §5.5 404).
 */

interface Cassette {
  interactions: {
    request: { body: Record<string, unknown> };
    response: { status: number; body: Record<string, unknown> };
  }[];
}

function withoutIds(items: Record<string, unknown>[]): Record<string, unknown>[] {
  return items.map(({ id: _id, ...rest }) => rest);
}

describe('replay of a recorded OpenAI tool turn (fixture pydantic-thinking-with-tool-calls)', () => {
  it('turn 2 input equals the accepted recorded input, minus ids', () => {
    const file = path.join(FIXTURES_DIRECTORY, 'openai-responses/pydantic-thinking-with-tool-calls.cassette.json');
    const cassette = JSON.parse(readFileSync(file, 'utf8')) as Cassette;
    const [first, second] = cassette.interactions;
    if (first === undefined || second === undefined) throw new Error('fixture has two interactions');
    const recordedInput = second.request.body['input'] as Record<string, unknown>[];
    const user = recordedInput[0] as { content: string };
    const output = recordedInput[3] as { call_id: string; output: string };

    const terminal = decodeResponsesResponse(first.response.body, {
      origin: { api: 'codex_responses', provider: 'openai', host: '', model: 'gpt-5' },
      issuerKind: 'other:https://api.openai.com/v1',
    });
    if (terminal.type !== 'finish') throw new Error('turn 1 should decode');
    const history: Message[] = [
      { role: 'user', content: user.content },
      terminal.message,
      { role: 'tool', tool_call_id: output.call_id, content: output.output },
    ];
    const prepared = prepareResponses({
      route: { api: 'codex_responses', provider: 'openai', model: 'gpt-5' },
      history,
      tools: [],
      reasoning: { enabled: true, effort: 'low' },
    });
    expect(second.response.status).toBe(200);
    expect(prepared.body['input']).toEqual(withoutIds(recordedInput));
  });
});
