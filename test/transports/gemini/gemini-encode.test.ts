import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../../src/core/message.js';
import type { Route } from '../../../src/core/route.js';
import { decodeGeminiResponse, GeminiDecoder } from '../../../src/transports/gemini/gemini-decode.js';
import { geminiRequestUrl, prepareGemini } from '../../../src/transports/gemini/gemini-encode.js';
import type { GeminiResponse } from '../../../src/transports/gemini/gemini-wire.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { readCassette, studioContext } from './gemini-fixtures.js';

const STUDIO: Route = { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview' };
const VERTEX: Route = {
  api: 'gemini',
  provider: 'vertex',
  model: 'gemini-3-pro-preview',
  baseUrl: 'https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1',
};
const studioOrigin = { api: 'gemini' as const, provider: 'gemini', host: '', model: 'gemini-3-pro-preview' };

function request(route: Route, history: Message[], extra: Partial<TransportRequest> = {}): TransportRequest {
  return { route, history, tools: [], reasoning: { enabled: false }, ...extra };
}

/** A stored AI Studio tool-call turn, as the decoder captures it. */
function toolTurn(signature = 'SIG_CALL'): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
        extra_content: { google: { thought_signature: signature } },
      },
    ],
    reasoning: 'I should read it.',
    reasoning_content: 'I should read it.',
    origin: studioOrigin,
    gemini_issuer: 'ai-studio',
    gemini_content_parts: [
      { text: 'I should read it.', thought: true },
      { functionCall: { name: 'read_file', args: { path: 'notes.txt' } }, thoughtSignature: signature },
    ],
  } as AssistantMessage;
}

const history = (turn: AssistantMessage): Message[] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'read notes.txt' },
  turn,
  { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
];

describe('Gemini request encoding (SPEC §11, WIRE.md §4.1, §4.4)', () => {
  it('same issuer: every stored part with its signature, functionCall.id for Gemini 3, results in a user turn', () => {
    const prepared = prepareGemini(request(STUDIO, history(toolTurn())));
    expect(prepared.body).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'read notes.txt' }] },
        {
          role: 'model',
          parts: [
            { text: 'I should read it.', thought: true },
            {
              functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_1' },
              thoughtSignature: 'SIG_CALL',
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'read_file', response: { result: 'hello' }, id: 'call_1' } }],
        },
      ],
    });
    expect(prepared.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse',
    );
    expect(prepared.carriersSent).toEqual([]);
    expect(prepared.routeKey).toBe('gemini||gemini-3-pro-preview');
    expect(prepared.decisions).toEqual([
      { messageIndex: 2, field: 'thought', action: 'kept', reason: 'same issuer and model family', bytes: 17 },
      { messageIndex: 2, field: 'thought_signature', action: 'kept', reason: 'same issuer and model family', bytes: 8 },
    ]);
  });

  it('SPEC §23.2: an AI Studio signature never goes to Vertex; the current-turn call gets the sentinel', () => {
    const prepared = prepareGemini(request(VERTEX, history(toolTurn())));
    expect(prepared.body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'read notes.txt' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_1' },
            thoughtSignature: 'skip_thought_signature_validator',
          },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'read_file', response: { result: 'hello' }, id: 'call_1' } }],
      },
    ]);
    expect(JSON.stringify(prepared.body)).not.toContain('SIG_CALL');
    expect(prepared.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-3-pro-preview:streamGenerateContent?alt=sse',
    );
    expect(prepared.decisions).toEqual([
      { messageIndex: 2, field: 'thought', action: 'dropped', reason: 'foreign origin (issuer ai-studio)' },
      {
        messageIndex: 2,
        field: 'thought_signature',
        action: 'dropped',
        reason: 'foreign origin (issuer ai-studio)',
        bytes: 8,
      },
      {
        messageIndex: 2,
        field: 'thought_signature',
        action: 'padded',
        reason: 'current-turn call without a usable signature: skip sentinel',
      },
    ]);
  });

  it('WIRE.md §4.4: previous-turn calls without a signature get no sentinel; only the current turn is validated', () => {
    const foreign = toolTurn();
    const messages: Message[] = [
      ...history(foreign),
      { role: 'assistant', content: 'It says hello.', origin: studioOrigin },
      { role: 'user', content: 'thanks' },
    ];
    const contents = prepareGemini(request(VERTEX, messages)).body['contents'] as { parts: object[] }[];
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_1' } }],
    });
  });

  it('a different model family is foreign too (gemini-2.5 signature → gemini-3 route)', () => {
    const turn = toolTurn();
    turn.origin = { ...studioOrigin, model: 'gemini-2.5-pro' };
    const contents = prepareGemini(request(STUDIO, history(turn))).body['contents'] as {
      parts: { thoughtSignature?: string }[];
    }[];
    expect(contents[1]?.parts).toEqual([
      {
        functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_1' },
        thoughtSignature: 'skip_thought_signature_validator',
      },
    ]);
  });

  it('SPEC §11: the text signature is replayed on the LAST text part (rebuilt from the private record)', () => {
    const legacy: AssistantMessage = {
      role: 'assistant',
      content: '391',
      reasoning: 'Adding.',
      reasoning_details: [
        { type: 'hermes.native_assistant', extra_content: { google: { thought_signature: 'SIG_TEXT' } } },
      ],
    };
    const body = prepareGemini(
      request(STUDIO, [{ role: 'user', content: '17+374?' }, legacy, { role: 'user', content: 'ok' }]),
    ).body;
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: '17+374?' }] },
      { role: 'model', parts: [{ text: '391', thoughtSignature: 'SIG_TEXT' }] },
      { role: 'user', parts: [{ text: 'ok' }] },
    ]);
  });

  it('SPEC §11: a legacy tool call takes its signature from extra_content, else the flat key, else the sentinel', () => {
    const legacy: AssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'a',
          type: 'function',
          function: { name: 'f', arguments: '{}' },
          extra_content: { thought_signature: 'FLAT' },
        },
        { id: 'b', type: 'function', function: { name: 'g', arguments: '{"x":1}' } },
      ],
    };
    const next: AssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'h', arguments: '{}' } }],
    };
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      legacy,
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'tool', tool_call_id: 'b', content: '2' },
      next,
      { role: 'tool', tool_call_id: 'c', content: '3' },
    ];
    const route: Route = { ...STUDIO, model: 'gemini-2.5-flash' };
    expect(prepareGemini(request(route, messages)).body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'go' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'f', args: {} }, thoughtSignature: 'FLAT' },
          { functionCall: { name: 'g', args: { x: 1 } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'f', response: { result: '1' } } },
          { functionResponse: { name: 'g', response: { result: '2' } } },
        ],
      },
      {
        role: 'model',
        parts: [{ functionCall: { name: 'h', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'h', response: { result: '3' } } }] },
    ]);
  });

  it('edited history (stored parts no longer match): parts are rebuilt, signatures stay on their calls', () => {
    const turn = toolTurn();
    turn.content = 'Let me look.';
    const contents = prepareGemini(request(STUDIO, history(turn))).body['contents'] as object[];
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'Let me look.' },
        {
          functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_1' },
          thoughtSignature: 'SIG_CALL',
        },
      ],
    });
  });

  it('never mutates the history', () => {
    const messages = history(toolTurn());
    const before = structuredClone(messages);
    prepareGemini(request(VERTEX, messages));
    prepareGemini(request(STUDIO, messages));
    expect(messages).toEqual(before);
  });

  it.each([
    [
      'gemini-3-pro-preview',
      { enabled: true, effort: 'high' as const },
      { includeThoughts: true, thinkingLevel: 'high' },
    ],
    ['gemini-3-flash-preview', { enabled: true }, { includeThoughts: true }],
    ['gemini-2.5-pro', { enabled: true }, { includeThoughts: true, thinkingBudget: -1 }],
    ['gemini-2.5-flash', { enabled: true, effort: 'low' as const }, { includeThoughts: true, thinkingBudget: 1024 }],
    ['gemini-2.5-flash', { enabled: true, budgetTokens: 2048 }, { includeThoughts: true, thinkingBudget: 2048 }],
  ])('WIRE.md §4.1 thinkingConfig for %s %j', (model, reasoning, thinkingConfig) => {
    const body = prepareGemini(
      request({ ...STUDIO, model }, [{ role: 'user', content: 'hi' }], { reasoning, maxTokens: 100 }),
    ).body;
    expect(body['generationConfig']).toEqual({ thinkingConfig, maxOutputTokens: 100 });
  });

  it('declares tools with their JSON schema', () => {
    const tools = [
      { name: 'read_file', description: 'Read a file', parameters: { type: 'object', additionalProperties: false } },
    ];
    expect(prepareGemini(request(STUDIO, [{ role: 'user', content: 'hi' }], { tools })).body['tools']).toEqual([
      {
        functionDeclarations: [
          {
            name: 'read_file',
            description: 'Read a file',
            parametersJsonSchema: { type: 'object', additionalProperties: false },
          },
        ],
      },
    ]);
  });

  it.each([
    [STUDIO, false, {}, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:generateContent'],
    [
      { ...STUDIO, baseUrl: 'http://127.0.0.1:9/v1beta/', model: 'models/gemini-2.5-pro' },
      true,
      {},
      'http://127.0.0.1:9/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    ],
    [
      { api: 'gemini' as const, provider: 'vertex', model: 'gemini-2.5-pro' },
      false,
      { vertexProject: 'proj', vertexLocation: 'europe-west4' },
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/proj/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent',
    ],
    [
      { api: 'gemini' as const, provider: 'vertex', model: 'gemini-3-pro-preview' },
      true,
      { vertexProject: 'proj' },
      'https://aiplatform.googleapis.com/v1/projects/proj/locations/global/publishers/google/models/gemini-3-pro-preview:streamGenerateContent?alt=sse',
    ],
  ])('endpoint %#', (route, stream, defaults, url) => {
    expect(geminiRequestUrl(route, stream, defaults)).toBe(url);
  });
});

/**
 * pydantic-ai's Python SDK holds signatures as bytes and re-encodes them URL-safe on the way out
 * (WIRE.md §4.4: "Python `Part.thought_signature` is `bytes`"), so the accepted requests carry the
 * same bytes in the other base64 alphabet. Normalising the recorded side proves byte identity.
 */
function standardBase64<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, field: unknown) =>
      key === 'thoughtSignature' && typeof field === 'string' ? field.replace(/-/g, '+').replace(/_/g, '/') : field,
    ),
  ) as T;
}

describe('Gemini replay against recorded accepted requests (WIRE.md §4.4 evidence)', () => {
  it('pydantic-streaming-tool-call-thought-signature: turn 2 model content is byte-identical to the accepted request', () => {
    const cassette = readCassette('pydantic-streaming-tool-call-thought-signature.cassette.json');
    const sse = cassette[0]!.response.body as string;
    const chunks = sse
      .split(/\r\n\r\n/)
      .filter((event) => event.startsWith('data: '))
      .map((event) => JSON.parse(event.slice(6)) as GeminiResponse);
    const expectedContents = cassette[1]!.request.body['contents'] as {
      role: string;
      parts: { functionCall?: { id: string } }[];
    }[];
    const callId = expectedContents[1]!.parts[0]!.functionCall!.id;
    const decoder = new GeminiDecoder(studioContext(() => callId));
    for (const chunk of chunks) decoder.push(chunk);
    const finish = decoder.end().find((event) => event.type === 'finish');
    if (finish?.type !== 'finish') throw new Error('the decoder did not finish');
    const { message } = finish;
    const prepared = prepareGemini(
      request({ ...STUDIO, baseUrl: 'https://generativelanguage.googleapis.com/v1beta' }, [
        { role: 'user', content: 'What is the capital of the user country? Call the tool' },
        message,
        { role: 'tool', tool_call_id: callId, content: 'Mexico' },
      ]),
    );
    const contents = prepared.body['contents'] as object[];
    expect(contents[1]).toEqual(standardBase64(expectedContents[1]));
  });

  it('pydantic-thinking-part: the thought part and the signed answer part come back exactly as accepted', () => {
    const cassette = readCassette('pydantic-thinking-part.cassette.json');
    const { message } = decodeGeminiResponse(cassette[0]!.response.body as GeminiResponse, studioContext());
    const sent = cassette[1]!.request.body['contents'] as { parts: { text?: string }[] }[];
    const prepared = prepareGemini(
      request({ ...STUDIO, baseUrl: 'https://generativelanguage.googleapis.com/v1beta' }, [
        { role: 'user', content: sent[0]!.parts[0]!.text! },
        message,
        { role: 'user', content: sent[2]!.parts[0]!.text! },
      ]),
    );
    expect(prepared.body['contents']).toEqual(standardBase64(sent));
  });

  it('pydantic-instructions-only-with-tool-calls: parallel calls keep the signature on the first call only', () => {
    const cassette = readCassette('pydantic-instructions-only-with-tool-calls.cassette.json');
    const sent = cassette[1]!.request.body['contents'] as { parts: { functionCall?: { id: string } }[] }[];
    const ids = sent[1]!.parts.map((part) => part.functionCall!.id);
    const { message } = decodeGeminiResponse(
      cassette[0]!.response.body as GeminiResponse,
      studioContext((index) => ids[index]!, 'gemini-3-flash-preview'),
    );
    const prepared = prepareGemini(
      request(
        { ...STUDIO, model: 'gemini-3-flash-preview', baseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
        [
          { role: 'user', content: [{ type: 'text', text: '' }] },
          message,
          ...ids.map((id, index) => ({
            role: 'tool' as const,
            tool_call_id: id,
            content: ['cars', 'penguins', 'cars'][index]!,
          })),
        ],
      ),
    );
    const contents = prepared.body['contents'] as object[];
    expect(contents[1]).toEqual(standardBase64(sent[1]));
    expect(contents[2]).toEqual({
      role: 'user',
      parts: ids.map((id, index) => ({
        functionResponse: { name: 'generate_topic', response: { result: ['cars', 'penguins', 'cars'][index] }, id },
      })),
    });
  });
});
