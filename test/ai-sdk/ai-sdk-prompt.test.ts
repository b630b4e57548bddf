import { describe, expect, it } from 'vitest';
import type {
  LanguageModelV4Prompt,
  LanguageModelV4ReasoningPart,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
} from '@ai-sdk/provider';
import { generateContent } from '../../src/ai-sdk/ai-sdk-content.js';
import { historyFromPrompt } from '../../src/ai-sdk/ai-sdk-prompt.js';
import type { AssistantMessage } from '../../src/core/message.js';
import { UsageError } from '../../src/core/errors.js';

/**
 * The AI SDK prompt ⇄ canonical history (ai-sdk-carriers.ts): a stored assistant message turned
 * into content parts and read back from the prompt the AI SDK builds of them is the same message;
 * what another provider put in providerOptions is never taken for Hermes carriers. Pure: runs on
 * every Node.
 */

const ORIGIN = {
  api: 'anthropic_messages',
  provider: 'anthropic',
  host: 'api.anthropic.com',
  model: 'claude-opus-4-8',
} as const;

/** The prompt message the AI SDK builds from generated content (providerMetadata → providerOptions). */
function asPromptMessage(message: AssistantMessage): LanguageModelV4Prompt[number] {
  const content = generateContent(message).map(
    (part): LanguageModelV4ToolCallPart | LanguageModelV4TextPart | LanguageModelV4ReasoningPart => {
      const providerOptions = part.providerMetadata ? { providerOptions: part.providerMetadata } : {};
      if (part.type === 'tool-call') {
        const input = JSON.parse(part.input) as unknown;
        return { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input, ...providerOptions };
      }
      if (part.type === 'reasoning' || part.type === 'text')
        return { type: part.type, text: part.text, ...providerOptions };
      throw new Error(`unexpected part ${part.type}`);
    },
  );
  return { role: 'assistant', content };
}

const MESSAGES: [string, AssistantMessage][] = [
  [
    'Anthropic signed thinking + tool call',
    {
      role: 'assistant',
      content: null,
      reasoning: 'I should read it.',
      anthropic_content_blocks: [
        { type: 'thinking', thinking: 'I should read it.', signature: 'EqQBCkYIARgCKkA=' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } },
      ],
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path": "notes.txt"}' } },
      ],
      finish_reason: 'tool_use',
      origin: ORIGIN,
    },
  ],
  [
    'DeepSeek reasoning_content, empty, text answer',
    {
      role: 'assistant',
      content: 'done',
      reasoning_content: '',
      origin: {
        ...ORIGIN,
        api: 'chat_completions',
        provider: 'deepseek',
        host: 'api.deepseek.com',
        model: 'deepseek-v4-flash',
      },
    },
  ],
  [
    'Gemini per-call signature only (no reasoning part: the record rides on the call)',
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"a"}' },
          extra_content: { google: { thought_signature: 'c2ln' } },
        },
        { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
      ],
      gemini_content_parts: [{ functionCall: { name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'c2ln' }],
      origin: {
        ...ORIGIN,
        api: 'gemini',
        provider: 'google',
        host: 'generativelanguage.googleapis.com',
        model: 'gemini-3-pro-preview',
      },
    },
  ],
  [
    'Responses encrypted reasoning with an empty summary, call ids',
    {
      role: 'assistant',
      content: null,
      reasoning: '',
      codex_reasoning_items: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' }],
      tool_calls: [
        {
          id: 'fc_1',
          call_id: 'call_9',
          response_item_id: 'fc_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{}' },
        },
      ],
      origin: {
        ...ORIGIN,
        api: 'codex_responses',
        provider: 'openai-responses',
        host: 'api.openai.com',
        model: 'gpt-5.4',
      },
    },
  ],
];

describe('AI SDK prompt ⇄ canonical history', () => {
  it.each(MESSAGES)('%s: the message comes back as it was stored', (_name, message) => {
    const history = historyFromPrompt(JSON.parse(JSON.stringify([asPromptMessage(message)])) as LanguageModelV4Prompt);
    expect(history).toEqual([message]);
  });

  it('an edited tool input wins over the stored argument text; untouched keeps its exact bytes', () => {
    const [, message] = MESSAGES[0]!;
    const prompt = asPromptMessage(message);
    const edited = structuredClone(prompt);
    const call = edited.content[1] as { input: unknown };
    call.input = { path: 'other.txt' };
    const [kept] = historyFromPrompt([prompt]) as AssistantMessage[];
    const [changed] = historyFromPrompt([edited]) as AssistantMessage[];
    expect(kept?.tool_calls?.[0]?.function.arguments).toBe('{"path": "notes.txt"}');
    expect(changed?.tool_calls?.[0]?.function.arguments).toBe('{"path":"other.txt"}');
  });

  it("another provider's metadata is never a Hermes carrier: readable parts only, no origin", () => {
    const prompt: LanguageModelV4Prompt = [
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking', providerOptions: { anthropic: { signature: 'EqQBforeign' } } },
          { type: 'text', text: 'hello' },
        ],
      },
    ];
    expect(historyFromPrompt(prompt)).toEqual([{ role: 'assistant', content: 'hello', reasoning: 'thinking' }]);
  });

  it('tool results, system and user text become canonical messages; a file part is one clear error', () => {
    const prompt: LanguageModelV4Prompt = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'alpha' } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'stat', output: { type: 'json', value: { size: 3 } } },
          { type: 'tool-result', toolCallId: 'c3', toolName: 'rm', output: { type: 'execution-denied' } },
        ],
      },
    ];
    expect(historyFromPrompt(prompt)).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'c1', tool_name: 'read_file', content: 'alpha' },
      { role: 'tool', tool_call_id: 'c2', tool_name: 'stat', content: '{"size":3}' },
      { role: 'tool', tool_call_id: 'c3', tool_name: 'rm', content: 'The tool call was denied.' },
    ]);
    const withFile: LanguageModelV4Prompt = [
      {
        role: 'user',
        content: [{ type: 'file', mediaType: 'image/png', data: { type: 'url', url: new URL('https://x/y.png') } }],
      },
    ];
    expect(() => historyFromPrompt(withFile)).toThrow(UsageError);
    expect(() => historyFromPrompt(withFile)).toThrow('file parts in user messages are not supported yet');
  });
});
