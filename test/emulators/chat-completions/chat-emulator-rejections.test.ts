import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import type { ChatEmulatorOptions } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { useE2e } from '../../support/e2e.js';
import { CALL, callTurn, postSecondTurn } from './chat-emulator-test-helpers.js';

// WIRE.md §6 (unknown-field formats), §1.2 (DeepSeek must-echo), §1.7 + §2.6 (OpenRouter/Anthropic
// signatures), §1.8 (Copilot), §1.9 + §4.5 (Gemini): each rule answered with the provider's exact
// status and body, with the real message index and path.

/** Starts a chat emulator that is closed after the test. */
const start = useE2e().chat;

/** The OpenAI error envelope DeepSeek and OpenAI-compatible local servers answer with. */
function openAiError(message: string, param: string | null, code: string): JsonObject {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

/** Groq's envelope: the message and its type only. */
function groqError(message: string): JsonObject {
  return { error: { message, type: 'invalid_request_error' } };
}

/** Cerebras answers unwrapped, with `wrong_api_format`. */
function cerebrasError(message: string): JsonObject {
  return { message, type: 'invalid_request_error', param: 'validation_error', code: 'wrong_api_format' };
}

/** Fireworks' envelope names the object kind. */
function fireworksError(message: string): JsonObject {
  return { error: { object: 'error', type: 'invalid_request_error', message } };
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
    assistant: callTurn({ reasoning_content: 'thought' }),
    status: 400,
    body: groqError(
      "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property 'reasoning_content' is unsupported)]",
    ),
  },
  {
    name: 'Groq: reasoning is returned but not accepted back (400)',
    options: { persona: 'strict-groq' },
    assistant: { role: 'assistant', content: 'x', reasoning: 'thought' },
    status: 400,
    body: groqError(
      "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property 'reasoning' is unsupported)]",
    ),
  },
  {
    name: 'Groq: tool-call key reported bare (400)',
    options: { persona: 'strict-groq' },
    assistant: { role: 'assistant', content: '', tool_calls: [{ ...CALL, extra_content: { google: {} } }] },
    status: 400,
    body: groqError("'messages.2.tool_calls.0' : property 'extra_content' is unsupported"),
  },
  {
    name: 'Cerebras: reasoning_content is wrong_api_format (400)',
    options: { persona: 'strict-cerebras' },
    assistant: callTurn({ reasoning: 'ok', reasoning_content: 'thought' }),
    status: 400,
    body: cerebrasError(
      "messages.2.assistant.reasoning_content: property 'messages.2.assistant.reasoning_content' is unsupported",
    ),
  },
  {
    name: 'Cerebras told to reject reasoning too',
    options: { persona: 'strict-cerebras', rejectKeys: ['reasoning'] },
    assistant: callTurn({ reasoning: 'ok' }),
    status: 400,
    body: cerebrasError("messages.2.assistant.reasoning: property 'messages.2.assistant.reasoning' is unsupported"),
  },
  {
    name: 'Fireworks: reasoning is an extra input, with its value (400)',
    options: { persona: 'strict-fireworks' },
    assistant: callTurn({ reasoning_content: 'ok', reasoning: 'thought' }),
    status: 400,
    body: fireworksError("Extra inputs are not permitted, field: 'messages[2].reasoning', value: 'thought'"),
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
    assistant: callTurn({ reasoning: 'thought' }),
    status: 400,
    body: openAiError(
      'The `reasoning_content` in the thinking mode must be passed back to the API.',
      null,
      'invalid_request_error',
    ),
  },
  {
    name: 'DeepSeek told to reject reasoning_content answers an unknown-field text naming it',
    options: { persona: 'deepseek', rejectKeys: ['reasoning_content'] },
    assistant: callTurn({ reasoning_content: 'thought' }),
    status: 400,
    body: openAiError("Unknown parameter: 'messages[2].reasoning_content'.", null, 'invalid_request_error'),
  },
  {
    name: 'local told to reject reasoning: OpenAI unknown_parameter',
    options: { persona: 'local', rejectKeys: ['reasoning'] },
    assistant: callTurn({ reasoning: 'thought' }),
    status: 400,
    body: openAiError("Unknown parameter: 'messages[2].reasoning'.", 'messages[2].reasoning', 'unknown_parameter'),
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
    assistant: callTurn({ reasoning_text: 'thought' }, null),
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
    const result = await postSecondTurn(emulator, testCase.assistant);
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
    const result = await postSecondTurn(emulator, { role: 'assistant', content: '', ...extra, tool_calls: [call] });
    expect(result.status).toBe(200);
  });
});
