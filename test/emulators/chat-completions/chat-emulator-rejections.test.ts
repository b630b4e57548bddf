import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { startChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import type {
  ChatEmulatorOptions,
  RunningChatEmulator,
} from '../../../src/emulators/chat-completions/chat-emulator.js';
import {
  READ_FILE_TOOL,
  accumulate,
  chunkObjects,
  deltasOf,
  messageOf,
  postJson,
} from './chat-emulator-test-helpers.js';

// WIRE.md §6 (unknown-field formats), §1.2 (DeepSeek must-echo), §1.7 + §2.6 (OpenRouter/Anthropic
// signatures), §1.8 (Copilot), §1.9 + §4.5 (Gemini): each rule answered with the provider's exact
// status and body, with the real message index and path.

const running: RunningChatEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: ChatEmulatorOptions): Promise<RunningChatEmulator> {
  const emulator = await startChatEmulator(options);
  running.push(emulator);
  return emulator;
}

const CALL = { id: 'call_1_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } };

/** system, user, ASSISTANT (index 2), tool: the assistant message under test sits at messages[2]. */
function secondTurn(assistant: JsonObject, stream = false): JsonObject {
  return {
    model: 'model-under-test',
    stream,
    tools: [READ_FILE_TOOL],
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'read the file notes.txt' },
      assistant,
      { role: 'tool', tool_call_id: 'call_1_1', content: 'hello from notes' },
    ],
  };
}

async function firstTurnMessage(emulator: RunningChatEmulator): Promise<JsonObject> {
  const result = await postJson(`${emulator.baseUrl}/chat/completions`, {
    model: 'model-under-test',
    tools: [READ_FILE_TOOL],
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'read the file notes.txt' },
    ],
  });
  expect(result.status).toBe(200);
  return messageOf(result.json);
}

interface StrictCase {
  name: string;
  options: ChatEmulatorOptions;
  assistant: JsonObject;
  status: number;
  body: unknown;
}

const STRICT_CASES: StrictCase[] = [
  {
    name: 'Mistral: every extra key, one extra_forbidden detail each (422)',
    options: { persona: 'strict-mistral' },
    assistant: {
      role: 'assistant',
      content: '',
      reasoning_content: 'thought',
      tool_calls: [{ ...CALL, extra_content: { google: { thought_signature: 'c2ln' } } }],
    },
    status: 422,
    body: {
      object: 'error',
      message: {
        detail: [
          {
            type: 'extra_forbidden',
            loc: ['body', 'messages', 2, 'assistant', 'reasoning_content'],
            msg: 'Extra inputs are not permitted',
            input: 'thought',
          },
          {
            type: 'extra_forbidden',
            loc: ['body', 'messages', 2, 'assistant', 'tool_calls', 0, 'extra_content'],
            msg: 'Extra inputs are not permitted',
            input: { google: { thought_signature: 'c2ln' } },
          },
        ],
      },
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
  },
  {
    name: 'Groq: message-level key wrapped in the role clause (400)',
    options: { persona: 'strict-groq' },
    assistant: { role: 'assistant', content: '', reasoning_content: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      error: {
        message:
          "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property 'reasoning_content' is unsupported)]",
        type: 'invalid_request_error',
      },
    },
  },
  {
    name: 'Groq: reasoning is returned but not accepted back (400)',
    options: { persona: 'strict-groq' },
    assistant: { role: 'assistant', content: 'x', reasoning: 'thought' },
    status: 400,
    body: {
      error: {
        message:
          "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property 'reasoning' is unsupported)]",
        type: 'invalid_request_error',
      },
    },
  },
  {
    name: 'Groq: tool-call key reported bare (400)',
    options: { persona: 'strict-groq' },
    assistant: { role: 'assistant', content: '', tool_calls: [{ ...CALL, extra_content: { google: {} } }] },
    status: 400,
    body: {
      error: {
        message: "'messages.2.tool_calls.0' : property 'extra_content' is unsupported",
        type: 'invalid_request_error',
      },
    },
  },
  {
    name: 'Cerebras: reasoning_content is wrong_api_format (400)',
    options: { persona: 'strict-cerebras' },
    assistant: { role: 'assistant', content: '', reasoning: 'ok', reasoning_content: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      message:
        "messages.2.assistant.reasoning_content: property 'messages.2.assistant.reasoning_content' is unsupported",
      type: 'invalid_request_error',
      param: 'validation_error',
      code: 'wrong_api_format',
    },
  },
  {
    name: 'Cerebras told to reject reasoning too (issue 5)',
    options: { persona: 'strict-cerebras', rejectKeys: ['reasoning'] },
    assistant: { role: 'assistant', content: '', reasoning: 'ok', tool_calls: [CALL] },
    status: 400,
    body: {
      message: "messages.2.assistant.reasoning: property 'messages.2.assistant.reasoning' is unsupported",
      type: 'invalid_request_error',
      param: 'validation_error',
      code: 'wrong_api_format',
    },
  },
  {
    name: 'Fireworks: reasoning is an extra input, with its value (400)',
    options: { persona: 'strict-fireworks' },
    assistant: { role: 'assistant', content: '', reasoning_content: 'ok', reasoning: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      error: {
        object: 'error',
        type: 'invalid_request_error',
        message: "Extra inputs are not permitted, field: 'messages[2].reasoning', value: 'thought'",
      },
    },
  },
  {
    name: 'Fireworks: tool-call extra_content path',
    options: { persona: 'strict-fireworks' },
    assistant: { role: 'assistant', content: '', tool_calls: [{ ...CALL, extra_content: { a: 1 } }] },
    status: 400,
    body: {
      error: {
        object: 'error',
        type: 'invalid_request_error',
        message: "Extra inputs are not permitted, field: 'messages[2].tool_calls[0].extra_content', value: '{\"a\":1}'",
      },
    },
  },
  {
    name: 'DeepSeek: must-echo, tool-call turn without reasoning_content (WIRE.md §1.2 V4 text)',
    options: { persona: 'deepseek' },
    assistant: { role: 'assistant', content: '', reasoning: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      error: {
        message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    },
  },
  {
    name: 'DeepSeek told to reject reasoning_content answers an unknown-field text naming it (issue 5)',
    options: { persona: 'deepseek', rejectKeys: ['reasoning_content'] },
    assistant: { role: 'assistant', content: '', reasoning_content: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      error: {
        message: "Unknown parameter: 'messages[2].reasoning_content'.",
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    },
  },
  {
    name: 'local told to reject reasoning: OpenAI unknown_parameter',
    options: { persona: 'local', rejectKeys: ['reasoning'] },
    assistant: { role: 'assistant', content: '', reasoning: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      error: {
        message: "Unknown parameter: 'messages[2].reasoning'.",
        type: 'invalid_request_error',
        param: 'messages[2].reasoning',
        code: 'unknown_parameter',
      },
    },
  },
  {
    name: 'Gemini: tool call without extra_content (WIRE.md §4.5 Gemini API wording, array envelope)',
    options: { persona: 'gemini-openai' },
    assistant: { role: 'assistant', content: null, tool_calls: [CALL] },
    status: 400,
    body: [
      {
        error: {
          code: 400,
          message:
            'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:read_file` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
          status: 'INVALID_ARGUMENT',
        },
      },
    ],
  },
  {
    name: 'Gemini: a signature it never issued is corrupted',
    options: { persona: 'gemini-openai' },
    assistant: {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...CALL, extra_content: { google: { thought_signature: 'AVSoXO4bogus' } } }],
    },
    status: 400,
    body: [{ error: { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' } }],
  },
  {
    name: 'Copilot: tool-call turn without reasoning_opaque (WIRE.md §1.8 Vertex wording, Copilot envelope)',
    options: { persona: 'copilot' },
    assistant: { role: 'assistant', content: null, reasoning_text: 'thought', tool_calls: [CALL] },
    status: 400,
    body: {
      error: {
        message:
          'Unable to submit request because function call `default_api:read_file` in the 2. content block is missing a `thought_signature`.',
        code: 'invalid_request_body',
      },
    },
  },
];

describe('exact rejections (WIRE.md §6)', () => {
  it.each(STRICT_CASES)('$name', async (testCase) => {
    const emulator = await start(testCase.options);
    const result = await postJson(`${emulator.baseUrl}/chat/completions`, secondTurn(testCase.assistant));
    expect(result.status).toBe(testCase.status);
    expect(result.json).toEqual(testCase.body);
    expect(emulator.requests.map((request) => request.status)).toEqual([testCase.status]);
  });

  it.each([
    ['strict-cerebras accepts reasoning', 'strict-cerebras', { reasoning: 'thought' }],
    ['strict-fireworks accepts reasoning_content', 'strict-fireworks', { reasoning_content: 'thought' }],
    ['strict-mistral accepts its own tool-call index', 'strict-mistral', {}],
    [
      'deepseek accepts an empty reasoning_content and ignores extras',
      'deepseek',
      { reasoning_content: '', reasoning_details: [] },
    ],
    ['local accepts anything', 'local', { reasoning: 'a', reasoning_content: 'b', weird: 1 }],
  ] as [string, ChatEmulatorOptions['persona'], JsonObject][])('%s (SPEC §5)', async (_name, persona, extra) => {
    const emulator = await start({ persona });
    const call = persona === 'strict-mistral' ? { ...CALL, index: 0 } : CALL;
    const result = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', ...extra, tool_calls: [call] }),
    );
    expect(result.status).toBe(200);
  });
});

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
    const result = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({
        role: 'assistant',
        content: '',
        reasoning_details: first['reasoning_details'] ?? null,
        tool_calls: [CALL],
      }),
    );
    expect(result.status).toBe(200);
  });

  it('accepts details accumulated from its own stream', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const streamed = await postJson(`${emulator.baseUrl}/chat/completions`, {
      model: 'm',
      stream: true,
      tools: [READ_FILE_TOOL],
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'read the file notes.txt' },
      ],
    });
    const message = accumulate(chunkObjects(streamed.text));
    const result = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({
        role: 'assistant',
        content: '',
        reasoning_details: message['reasoning_details'] ?? null,
        tool_calls: [CALL],
      }),
    );
    expect(result.status).toBe(200);
  });

  it('altered text: 400 with Anthropic invalid-signature text in metadata.raw (§2.6b)', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const details = structuredClone((await firstTurnMessage(emulator))['reasoning_details']) as JsonObject[];
    (details[0] as JsonObject)['text'] = `${String((details[0] as JsonObject)['text'])} `;
    const result = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', reasoning_details: details, tool_calls: [CALL] }),
    );
    expect(result.status).toBe(400);
    expect(openRouterRaw(result.json)).toEqual(
      anthropicError('messages.1.content.0: Invalid `signature` in `thinking` block'),
    );
  });

  it('encrypted detail dropped: the turn is incomplete, also an invalid signature', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const details = (await firstTurnMessage(emulator))['reasoning_details'] as JsonObject[];
    const result = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', reasoning_details: details.slice(0, 1), tool_calls: [CALL] }),
    );
    expect(openRouterRaw(result.json)).toEqual(
      anthropicError('messages.1.content.0: Invalid `signature` in `thinking` block'),
    );
  });

  it('missing on a tool-call turn: 400 with the missing-thinking text (§2.6a)', async () => {
    const emulator = await start({ persona: 'openrouter' });
    const result = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', reasoning: 'plain text only', tool_calls: [CALL] }),
    );
    expect(result.status).toBe(400);
    expect(openRouterRaw(result.json)).toEqual(
      anthropicError(
        'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
      ),
    );
  });

  it('told to reject reasoning_details: unknown-field error, then the retry without them succeeds (issue 5)', async () => {
    const emulator = await start({ persona: 'openrouter', rejectKeys: ['reasoning_details'] });
    const first = await firstTurnMessage(emulator);
    const rejected = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({
        role: 'assistant',
        content: '',
        reasoning_details: first['reasoning_details'] ?? null,
        tool_calls: [CALL],
      }),
    );
    expect(rejected.status).toBe(400);
    expect(openRouterRaw(rejected.json)).toEqual(
      anthropicError('messages.2.reasoning_details: Extra inputs are not permitted'),
    );
    const retried = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', reasoning: first['reasoning'] ?? null, tool_calls: [CALL] }),
    );
    expect(retried.status).toBe(200);
  });
});

describe('Copilot opaque and Gemini signature round trips (WIRE.md §1.8, §1.9)', () => {
  it('Copilot accepts the latest opaque and rejects the superseded one', async () => {
    const emulator = await start({ persona: 'copilot' });
    const latest = await firstTurnMessage(emulator);
    const ok = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({
        role: 'assistant',
        content: null,
        reasoning_text: latest['reasoning_text'] ?? null,
        reasoning_opaque: latest['reasoning_opaque'] ?? null,
        tool_calls: [CALL],
      }),
    );
    expect(ok.status).toBe(200);
    const streamed = await postJson(`${emulator.baseUrl}/chat/completions`, {
      model: 'm',
      stream: true,
      tools: [READ_FILE_TOOL],
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'read the file notes.txt' },
      ],
    });
    const superseded = deltasOf(chunkObjects(streamed.text)).find((delta) => delta['reasoning_opaque'])?.[
      'reasoning_opaque'
    ];
    const stale = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: null, reasoning_opaque: superseded ?? null, tool_calls: [CALL] }),
    );
    expect(stale.status).toBe(400);
    expect(stale.json).toEqual({
      error: { message: 'Invalid `signature` in `thinking` block', code: 'invalid_request_body' },
    });
  });

  it('Gemini accepts its own signature on the same tool call and rejects it moved to another call id', async () => {
    const emulator = await start({ persona: 'gemini-openai' });
    const first = await firstTurnMessage(emulator);
    const calls = first['tool_calls'] as JsonObject[];
    const ok = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: null, tool_calls: calls }),
    );
    expect(ok.status).toBe(200);
    const moved = calls.map((call) => ({ ...call, id: 'call_other' }));
    const rejected = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: null, tool_calls: moved }),
    );
    expect(rejected.json).toEqual([
      { error: { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' } },
    ]);
  });
});

describe('rejectAlways (issue 5: a persona that rejects every retry)', () => {
  it('rejects every request carrying a carrier, names the first one, and serves requests without carriers', async () => {
    const emulator = await start({ persona: 'strict-cerebras', rejectAlways: true });
    const withReasoning = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', reasoning: 'thought', tool_calls: [CALL] }),
    );
    expect(withReasoning.json).toEqual({
      message: "messages.2.assistant.reasoning: property 'messages.2.assistant.reasoning' is unsupported",
      type: 'invalid_request_error',
      param: 'validation_error',
      code: 'wrong_api_format',
    });
    const again = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', reasoning: 'thought', tool_calls: [CALL] }),
    );
    expect(again.status).toBe(400);
    const bare = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', tool_calls: [CALL] }),
    );
    expect(bare.status).toBe(200);
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 400, 200]);
  });

  it('an OpenRouter instance that rejects always never requires the details it rejects', async () => {
    const emulator = await start({ persona: 'openrouter', rejectAlways: true });
    const bare = await postJson(
      `${emulator.baseUrl}/chat/completions`,
      secondTurn({ role: 'assistant', content: '', tool_calls: [CALL] }),
    );
    expect(bare.status).toBe(200);
  });
});
