import { describe, expect, test } from 'vitest';
import { FIELD_REJECTION_PHRASES, classifyFieldRejection } from '../../src/replay/replay-field-rejection.js';
import type { Carrier } from '../../src/replay/replay-types.js';

const ALL: Carrier[] = ['reasoning_content', 'reasoning', 'reasoning_details'];

describe('SPEC §13.1 qualifying phrases (and WIRE.md §6 bodies)', () => {
  test.each(FIELD_REJECTION_PHRASES.map((phrase) => [phrase]))('"%s" + reasoning_details qualifies', (phrase) => {
    expect(classifyFieldRejection(`Error: ${phrase.toUpperCase()} messages.1.reasoning_details`, ALL)).toEqual([
      'reasoning',
      'reasoning_details',
    ]);
  });

  test.each([
    [
      'Groq message-level',
      "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property 'reasoning_content' is unsupported)]",
      ALL,
    ],
    [
      'Cerebras wrong_api_format',
      '{"message":"messages.2.assistant.reasoning_content: property \'messages.2.assistant.reasoning_content\' is unsupported","type":"invalid_request_error","param":"validation_error","code":"wrong_api_format"}',
      ALL,
    ],
    [
      'Mistral extra_forbidden',
      '{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","messages",1,"assistant","reasoning_content"],"msg":"Extra inputs are not permitted","input":"x"}]},"type":"invalid_request_error"}',
      ALL,
    ],
    [
      'Fireworks message-level',
      "Extra inputs are not permitted, field: 'messages[8].reasoning', value: 'abc'",
      ['reasoning', 'reasoning_details'],
    ],
    [
      'Fireworks older',
      "[{'loc': ('body', 'messages', 2, 'reasoning_details'), 'msg': 'extra fields not permitted'}]",
      ['reasoning', 'reasoning_details'],
    ],
    ['OpenAI newer', "Unknown parameter: 'messages[2].reasoning'.", ['reasoning', 'reasoning_details']],
    [
      'OpenAI older',
      "Additional properties are not allowed ('reasoning' was unexpected) - 'messages.2'",
      ['reasoning', 'reasoning_details'],
    ],
    [
      'Azure',
      'Unrecognized request argument supplied: messages.1.reasoning_details',
      ['reasoning', 'reasoning_details'],
    ],
    [
      'huma gateway',
      '{"title":"Unprocessable Entity","status":422,"errors":[{"message":"unexpected property","location":"body.messages[3].reasoning_content"}]}',
      ALL,
    ],
    [
      'serde',
      'Failed to deserialize the JSON body: messages[1]: unknown field `reasoning_details`, expected one of `role`, `content`',
      ['reasoning', 'reasoning_details'],
    ],
  ])('%s', (_name, body, expected) => {
    expect(classifyFieldRejection(body, ALL)).toEqual(expected);
  });

  test.each([
    ['generic OpenRouter error', '{"error":{"message":"Provider returned error","code":400}}'],
    ['value complaint', 'reasoning_content is not allowed to be empty'],
    ['invalid value', 'invalid reasoning_content value'],
    ['DeepSeek must be passed back', 'The `reasoning_content` in the thinking mode must be passed back to the API.'],
    ['DeepSeek missing', 'Missing `reasoning_content` field in the assistant message at message index 2.'],
    ['top-level reasoning, no messages path', "property 'reasoning' is unsupported"],
    ['top-level parameter', 'Unrecognized request argument supplied: reasoning_effort'],
    ['tool-call extra_content', "'messages.1.tool_calls.0' : property 'extra_content' is unsupported"],
  ])('%s does not qualify', (_name, body) => {
    expect(classifyFieldRejection(body, ALL)).toEqual([]);
  });
});

describe('SPEC §13.1 whole-word rules', () => {
  test.each([
    ['unknown field my_reasoning_content', []],
    ['unknown field reasoning_contents', []],
    ['unknown field reasoning_details2', []],
    ['unknown field messages.0.reasoning_content', ALL],
    ['unknown field "reasoning_details"', ['reasoning', 'reasoning_details']],
    ['unknown field in messages: reasoning_text', []],
    ['unknown field in messages[0]: reasoning', ['reasoning', 'reasoning_details']],
    [`unknown field in messages ${'x'.repeat(81)} reasoning`, []],
    [`unknown field in messages ${'x'.repeat(70)} reasoning`, ['reasoning', 'reasoning_details']],
    ['unknown field in messages\n reasoning', []],
  ] as [string, Carrier[]][])('%s → %j', (body, expected) => {
    expect(classifyFieldRejection(body, ALL)).toEqual(expected);
  });
});

describe('SPEC §13.2 field computation and §13.3 must-echo exception', () => {
  test('only carriers that were sent are learned', () => {
    expect(classifyFieldRejection("Unknown parameter: 'messages[2].reasoning'.", ['reasoning_content'])).toEqual([]);
    expect(
      classifyFieldRejection("Unknown parameter: 'messages[2].reasoning'.", ['reasoning_content', 'reasoning']),
    ).toEqual(['reasoning']);
  });

  test('an RC rejection teaches every carrier that was sent', () => {
    expect(
      classifyFieldRejection("property 'messages.1.reasoning_content' is unsupported", [
        'reasoning_content',
        'reasoning_details',
      ]),
    ).toEqual(['reasoning_content', 'reasoning_details']);
  });

  test('must-echo routes never learn RC', () => {
    const body = "property 'messages.1.reasoning_content' is unsupported";
    expect(classifyFieldRejection(body, ALL, { mustEcho: true })).toEqual(['reasoning', 'reasoning_details']);
    expect(classifyFieldRejection(body, ['reasoning_content'], { mustEcho: true })).toEqual([]);
  });

  test('OpenRouter envelope: metadata.raw is classified, the outer "Provider returned error" is not', () => {
    const raw = "'messages.1' : property 'reasoning_details' is unsupported";
    const body = JSON.stringify({
      error: { message: 'Provider returned error', code: 400, metadata: { raw, provider_name: 'Groq' } },
    });
    expect(classifyFieldRejection(body, ALL)).toEqual(['reasoning', 'reasoning_details']);
  });
});
