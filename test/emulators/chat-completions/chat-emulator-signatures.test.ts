import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import type { RunningChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { useE2e } from '../../support/e2e.js';
import {
  accumulate,
  callTurn,
  chunkObjects,
  deltasOf,
  firstTurn,
  messageOf,
  postChat,
  postSecondTurn,
  secondTurn,
} from './chat-emulator-test-helpers.js';

// WIRE.md §1.7 + §2.6 (OpenRouter/Anthropic signatures), §1.8 (Copilot opaque), §1.9 (Gemini
// thought signatures) round trips, and the rejectKeys / rejectAlways behaviour.

/** Starts a chat emulator that is closed after the test. */
const start = useE2e().chat;

async function firstTurnMessage(emulator: RunningChatEmulator): Promise<JsonObject> {
  const result = await postChat(emulator, firstTurn(false, 'model-under-test'));
  expect(result.status).toBe(200);
  return messageOf(result.json);
}

function openRouterRaw(json: unknown): JsonObject {
  const error = (json as { error: { message: string; code: number; metadata: { raw: string; provider_name: string } } })
    .error;
  expect(error.message).toBe('Provider returned error');
  expect(error.code).toBe(400);
  expect(error.metadata.provider_name).toBe('Anthropic');
  return JSON.parse(error.metadata.raw) as JsonObject;
}

function anthropicError(message: string): JsonObject {
  return {
    type: 'error',
    error: { type: 'invalid_request_error', message },
    request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/) as unknown as string,
  };
}

describe('OpenRouter reasoning_details verification (WIRE.md §1.7, §2.6)', () => {
  it('accepts the details back byte-identical on the tool-call turn', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const first = await firstTurnMessage(emulator);
    const result = await postSecondTurn(emulator, callTurn({ reasoning_details: first['reasoning_details'] ?? null }));
    expect(result.status).toBe(200);
  });

  it('accepts details accumulated from its own stream', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const streamed = await postChat(emulator, firstTurn(true));
    const message = accumulate(chunkObjects(streamed.text));
    const result = await postSecondTurn(
      emulator,
      callTurn({ reasoning_details: message['reasoning_details'] ?? null }),
    );
    expect(result.status).toBe(200);
  });

  it('altered text: 400 with Anthropic invalid-signature text in metadata.raw (§2.6b)', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const details = structuredClone((await firstTurnMessage(emulator))['reasoning_details']) as JsonObject[];
    (details[0] as JsonObject)['text'] = `${String((details[0] as JsonObject)['text'])} `;
    const result = await postSecondTurn(emulator, callTurn({ reasoning_details: details }));
    expect(result.status).toBe(400);
    expect(openRouterRaw(result.json)).toEqual(
      anthropicError('messages.1.content.0: Invalid `signature` in `thinking` block'),
    );
  });

  it('encrypted detail dropped: the turn is incomplete, also an invalid signature', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const details = (await firstTurnMessage(emulator))['reasoning_details'] as JsonObject[];
    const result = await postSecondTurn(emulator, callTurn({ reasoning_details: details.slice(0, 1) }));
    expect(openRouterRaw(result.json)).toEqual(
      anthropicError('messages.1.content.0: Invalid `signature` in `thinking` block'),
    );
  });

  it('missing on a tool-call turn: 400 with the missing-thinking text (§2.6a)', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const result = await postSecondTurn(emulator, callTurn({ reasoning: 'plain text only' }));
    expect(result.status).toBe(400);
    expect(openRouterRaw(result.json)).toEqual(
      anthropicError(
        'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
      ),
    );
  });

  it('an earlier tool loop without thinking is accepted: only the in-flight loop must carry it (§2.4, §2.6a)', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const body = secondTurn(callTurn({ reasoning: 'plain text only' }));
    (body['messages'] as JsonObject[]).push(
      { role: 'assistant', content: 'It says hello.' },
      { role: 'user', content: 'thanks' },
    );
    const result = await postChat(emulator, body);
    expect(result.status).toBe(200);
  });

  it('told to reject reasoning_details: unknown-field error, then the retry without them succeeds', async () => {
    const emulator = await start({ persona: 'openrouter', rejectKeys: ['reasoning_details'] });
    const first = await firstTurnMessage(emulator);
    const rejected = await postSecondTurn(
      emulator,
      callTurn({ reasoning_details: first['reasoning_details'] ?? null }),
    );
    expect(rejected.status).toBe(400);
    expect(openRouterRaw(rejected.json)).toEqual(
      anthropicError('messages.2.reasoning_details: Extra inputs are not permitted'),
    );
    const retried = await postSecondTurn(emulator, callTurn({ reasoning: first['reasoning'] ?? null }));
    expect(retried.status).toBe(200);
  });
});

describe('Copilot opaque and Gemini signature round trips (WIRE.md §1.8, §1.9)', () => {
  it('Copilot accepts the latest opaque and rejects the superseded one', async () => {
    const emulator = await start({ persona: 'copilot' });
    const latest = await firstTurnMessage(emulator);
    const ok = await postSecondTurn(
      emulator,
      callTurn(
        { reasoning_text: latest['reasoning_text'] ?? null, reasoning_opaque: latest['reasoning_opaque'] ?? null },
        null,
      ),
    );
    expect(ok.status).toBe(200);
    const streamed = await postChat(emulator, firstTurn(true));
    const superseded = deltasOf(chunkObjects(streamed.text)).find((delta) => delta['reasoning_opaque'])?.[
      'reasoning_opaque'
    ];
    const stale = await postSecondTurn(emulator, callTurn({ reasoning_opaque: superseded ?? null }, null));
    expect(stale.status).toBe(400);
    expect(stale.json).toEqual({
      error: { message: 'Invalid `signature` in `thinking` block', code: 'invalid_request_body' },
    });
  });

  it('Gemini accepts its own signature on the same tool call and rejects it moved to another call id', async () => {
    const emulator = await start({ persona: 'gemini-openai' });
    const first = await firstTurnMessage(emulator);
    const calls = first['tool_calls'] as JsonObject[];
    const ok = await postSecondTurn(emulator, { role: 'assistant', content: null, tool_calls: calls });
    expect(ok.status).toBe(200);
    const moved = calls.map((call) => ({ ...call, id: 'call_other' }));
    const rejected = await postSecondTurn(emulator, { role: 'assistant', content: null, tool_calls: moved });
    expect(rejected.json).toEqual([
      { error: { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' } },
    ]);
  });
});

describe('rejectAlways (a persona that rejects every retry)', () => {
  it('rejects every request carrying a carrier, names the first one, and serves requests without carriers', async () => {
    const emulator = await start({ persona: 'strict-cerebras', rejectAlways: true });
    const withReasoning = await postSecondTurn(emulator, callTurn({ reasoning: 'thought' }));
    expect(withReasoning.json).toEqual({
      message: "messages.2.assistant.reasoning: property 'messages.2.assistant.reasoning' is unsupported",
      type: 'invalid_request_error',
      param: 'validation_error',
      code: 'wrong_api_format',
    });
    const again = await postSecondTurn(emulator, callTurn({ reasoning: 'thought' }));
    expect(again.status).toBe(400);
    const bare = await postSecondTurn(emulator, callTurn());
    expect(bare.status).toBe(200);
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 400, 200]);
  });

  it('an OpenRouter instance that rejects always never requires the details it rejects', async () => {
    const emulator = await start({ persona: 'openrouter', rejectAlways: true });
    const bare = await postSecondTurn(emulator, callTurn());
    expect(bare.status).toBe(200);
  });
});
