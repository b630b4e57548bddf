import { describe, expect, it } from 'vitest';
import { parseGeminiRequest } from '../../src/gateway/gateway-gemini-request.js';
import { parseGeminiTarget } from '../../src/gateway/gateway-gemini-door.js';

/** Reading Gemini requests into canonical history (src/gateway/gateway-gemini-request.ts). */

const target = { model: 'deepseek', stream: false };

describe('parseGeminiRequest', () => {
  it('reads what Gemini CLI sends after --resume: placeholder signatures are no reasoning, a repeated function response is one', () => {
    const parsed = parseGeminiRequest(
      {
        systemInstruction: { parts: [{ text: 'You are Gemini CLI.' }] },
        contents: [
          { role: 'user', parts: [{ text: '<session_context>…</session_context>' }, { text: 'read notes.txt' }] },
          {
            role: 'model',
            parts: [
              {
                functionCall: { id: 'call_1', name: 'read_file', args: { file_path: 'notes.txt' } },
                thoughtSignature: 'skip_thought_signature_validator',
              },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'call_1', name: 'read_file', response: { output: 'alpha beta\n' } } },
              { functionResponse: { id: 'call_1', name: 'read_file', response: { output: 'alpha beta\n' } } },
            ],
          },
          { role: 'model', parts: [{ text: 'It says alpha beta.' }] },
          { role: 'user', parts: [{ text: 'thanks' }] },
        ],
        generationConfig: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
      },
      target,
    );
    expect(parsed.history.messages).toEqual([
      { role: 'system', content: 'You are Gemini CLI.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '<session_context>…</session_context>' },
          { type: 'text', text: 'read notes.txt' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"notes.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'alpha beta\n' },
      { role: 'assistant', content: 'It says alpha beta.' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(parsed.history.echoes.size).toBe(0);
    expect(parsed.reasoning).toEqual({ enabled: true, effort: 'high' });
    expect(parsed.includeThoughts).toBe(true);
  });

  it('one handle on several parts of a turn is one echo; thought text is its readable reasoning', () => {
    const parsed = parseGeminiRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          {
            role: 'model',
            parts: [
              { text: 'thinking about it', thought: true },
              { text: 'Calling it.', thoughtSignature: 'hermes.1.k.abc' },
              { functionCall: { name: 'read_file', args: {} }, thoughtSignature: 'hermes.1.k.abc' },
            ],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { error: 'no such file' } } }] },
        ],
      },
      target,
    );
    const [, assistant, tool] = parsed.history.messages;
    expect(assistant).toMatchObject({ content: 'Calling it.', tool_calls: [{ id: 'gemini-call-1-2' }] });
    // A response without an id answers the oldest open call of its name.
    expect(tool).toEqual({ role: 'tool', tool_call_id: 'gemini-call-1-2', content: 'error: no such file' });
    expect(parsed.history.echoes.get(1)).toEqual({
      reasoning: [
        { field: 'contents[1].parts[1].thoughtSignature', value: 'hermes.1.k.abc', text: 'thinking about it' },
      ],
    });
  });

  it('reads OpenAPI-style parameters as JSON Schema, refuses hosted tools, marks JSON side requests, turns thinking off', () => {
    const parsed = parseGeminiRequest(
      {
        contents: [{ parts: [{ text: 'hi' }] }],
        tools: [
          {
            functionDeclarations: [
              { name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } },
            ],
          },
        ],
        generationConfig: { responseMimeType: 'application/json', thinkingConfig: { thinkingBudget: 0 } },
      },
      target,
    );
    expect(parsed.tools).toEqual([
      { name: 'f', description: '', parameters: { type: 'object', properties: { a: { type: 'string' } } } },
    ]);
    expect(parsed.sideRequest).toBe(true);
    expect(parsed.reasoning).toEqual({ enabled: false });
    expect(() =>
      parseGeminiRequest({ contents: [{ parts: [{ text: 'hi' }] }], tools: [{ codeExecution: {} }] }, target),
    ).toThrow(/hosted tools .*codeExecution/);
    expect(() => parseGeminiRequest({ contents: [] }, target)).toThrow(/"contents" must be a non-empty array/);
    expect(() => parseGeminiRequest({ contents: [{ role: 'tool', parts: [] }] }, target)).toThrow(/role must be/);
  });
});

describe('parseGeminiTarget', () => {
  it('splits the model from the action at the last colon', () => {
    expect(parseGeminiTarget('gemini-3-pro-preview:streamGenerateContent')).toEqual({
      model: 'gemini-3-pro-preview',
      method: 'streamGenerateContent',
    });
    expect(parseGeminiTarget('deepseek:deepseek-v4-flash:countTokens')).toEqual({
      model: 'deepseek:deepseek-v4-flash',
      method: 'countTokens',
    });
    expect(parseGeminiTarget('gemini-3-pro-preview')).toBeNull();
    expect(parseGeminiTarget('gemini:embedContent')).toBeNull();
  });
});
