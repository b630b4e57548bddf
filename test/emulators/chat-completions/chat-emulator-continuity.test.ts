import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { startChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName, RunningChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { READ_FILE_TOOL, accumulate, chunkObjects, messageOf, postJson } from './chat-emulator-test-helpers.js';

// Scripted model: every answer states whether the persona's own earlier reasoning
// came back intact, read from the carrier that persona reads (SPEC §5, WIRE.md §1.1): RC for
// DeepSeek/Fireworks/local, R for Cerebras, reasoning_details text for OpenRouter, reasoning_text
// for Copilot, thinking chunks for Mistral, the sealed thought signature for Gemini; Groq reads none.

const INTACT = 'Reasoning continuity: intact (1/1).';
const ALTERED = 'Reasoning continuity: broken (0 intact, 1 altered, 0 missing of 1).';
const MISSING = 'Reasoning continuity: broken (0 intact, 0 altered, 1 missing of 1).';

type Replay = (first: JsonObject) => JsonObject;

const pick =
  (...keys: string[]): Replay =>
  (first) => {
    const replayed: JsonObject = {};
    for (const key of ['role', 'content', ...keys, 'tool_calls'])
      if (first[key] !== undefined) replayed[key] = first[key];
    return replayed;
  };

interface ContinuityCase {
  persona: ChatPersonaName;
  /** What a correct client sends back for this route. */
  replay: Replay;
  /** Expected continuity sentence for the correct replay. */
  expected: string;
  /** Alters the readable reasoning while keeping any signature valid (absent when altering is a 400). */
  alter?: (replayed: JsonObject) => void;
  /** Omits the carrier (absent when omitting it is a 400 on this route). */
  omit?: Replay;
}

const suffix = (key: string) => (replayed: JsonObject) => {
  replayed[key] = `${String(replayed[key])} (edited)`;
};

const CASES: ContinuityCase[] = [
  { persona: 'openrouter', replay: pick('reasoning_details'), expected: INTACT },
  {
    persona: 'deepseek',
    replay: pick('reasoning_content'),
    expected: INTACT,
    alter: suffix('reasoning_content'),
  },
  {
    persona: 'strict-mistral',
    replay: pick(),
    expected: INTACT,
    alter: (replayed) => {
      replayed['content'] = [{ type: 'thinking', thinking: [{ type: 'text', text: 'rewritten thought' }] }];
    },
    omit: (first) => ({ role: 'assistant', content: '', tool_calls: first['tool_calls'] ?? null }),
  },
  { persona: 'strict-groq', replay: pick(), expected: MISSING },
  {
    persona: 'strict-cerebras',
    replay: pick('reasoning'),
    expected: INTACT,
    alter: suffix('reasoning'),
    omit: pick(),
  },
  {
    persona: 'strict-fireworks',
    replay: pick('reasoning_content'),
    expected: INTACT,
    alter: suffix('reasoning_content'),
    omit: pick(),
  },
  {
    persona: 'copilot',
    replay: pick('reasoning_text', 'reasoning_opaque'),
    expected: INTACT,
    alter: suffix('reasoning_text'),
    omit: pick('reasoning_opaque'),
  },
  { persona: 'gemini-openai', replay: pick(), expected: INTACT },
  {
    persona: 'local',
    replay: pick('reasoning_content'),
    expected: INTACT,
    alter: suffix('reasoning_content'),
    omit: pick(),
  },
];

const emulators = new Map<ChatPersonaName, RunningChatEmulator>();
beforeAll(async () => {
  for (const testCase of CASES) emulators.set(testCase.persona, await startChatEmulator({ persona: testCase.persona }));
});
afterAll(async () => {
  await Promise.all([...emulators.values()].map((emulator) => emulator.close()));
});

const QUESTION = { role: 'user', content: 'read the file notes.txt' };

async function firstTurn(baseUrl: string): Promise<JsonObject> {
  const result = await postJson(`${baseUrl}/chat/completions`, {
    model: 'm',
    tools: [READ_FILE_TOOL],
    messages: [QUESTION],
  });
  return messageOf(result.json);
}

async function secondTurnContent(baseUrl: string, assistant: JsonObject, stream = false): Promise<string> {
  const result = await postJson(`${baseUrl}/chat/completions`, {
    model: 'm',
    stream,
    tools: [READ_FILE_TOOL],
    messages: [QUESTION, assistant, { role: 'tool', tool_call_id: 'call_1_1', content: 'hello from notes' }],
  });
  expect(result.status, result.text).toBe(200);
  const message = stream ? accumulate(chunkObjects(result.text)) : messageOf(result.json);
  const content = message['content'];
  if (typeof content === 'string') return content;
  return (content as JsonObject[]).map((part) => (part['type'] === 'text' ? String(part['text']) : '')).join('');
}

describe.each(CASES)('continuity report, $persona', (testCase) => {
  const baseUrl = () => emulators.get(testCase.persona)?.baseUrl ?? '';

  it('correct replay of the tool-call turn', async () => {
    const first = await firstTurn(baseUrl());
    expect(await secondTurnContent(baseUrl(), testCase.replay(first))).toBe(
      `The tool returned: hello from notes\n${testCase.expected}`,
    );
  });
});

// Personas where altering or omitting the carrier is a 400 (OpenRouter, Gemini signatures; DeepSeek
// must-echo) are covered in chat-emulator-rejections.test.ts; here only the ones that answer.
describe.each(CASES.filter((testCase) => testCase.alter !== undefined))('altered reasoning, $persona', (testCase) => {
  it('reports the turn as altered', async () => {
    const baseUrl = emulators.get(testCase.persona)?.baseUrl ?? '';
    const replayed = testCase.replay(await firstTurn(baseUrl));
    testCase.alter?.(replayed);
    expect(await secondTurnContent(baseUrl, replayed)).toBe(`The tool returned: hello from notes\n${ALTERED}`);
  });
});

describe.each(CASES.filter((testCase) => testCase.omit !== undefined))('reasoning left out, $persona', (testCase) => {
  it('reports the turn as missing', async () => {
    const baseUrl = emulators.get(testCase.persona)?.baseUrl ?? '';
    const replayed = testCase.omit?.(await firstTurn(baseUrl)) ?? {};
    expect(await secondTurnContent(baseUrl, replayed)).toBe(`The tool returned: hello from notes\n${MISSING}`);
  });
});

describe('continuity over a stream', () => {
  it('the streamed answer carries the same sentence (DeepSeek)', async () => {
    const baseUrl = emulators.get('deepseek')?.baseUrl ?? '';
    const first = await firstTurn(baseUrl);
    expect(await secondTurnContent(baseUrl, pick('reasoning_content')(first), true)).toBe(
      `The tool returned: hello from notes\n${INTACT}`,
    );
  });
});

// SPEC §26.8: a signed persona marks every turn it issues (Gemini's thought signature, Copilot's
// reasoning_opaque), so an earlier turn with no mark is another model's: counted apart, never as
// missing. An unsigned persona cannot tell, and counts it missing.
describe.each([
  {
    persona: 'gemini-openai' as const,
    expected:
      'Reasoning continuity: no turn of this model yet. Foreign turns: 1 (not issued by this model; not counted).',
  },
  {
    persona: 'copilot' as const,
    expected:
      'Reasoning continuity: no turn of this model yet. Foreign turns: 1 (not issued by this model; not counted).',
  },
  { persona: 'local' as const, expected: MISSING },
])('another model’s earlier turn, $persona', ({ persona, expected }) => {
  it(`says: ${expected}`, async () => {
    const baseUrl = emulators.get(persona)?.baseUrl ?? '';
    const result = await postJson(`${baseUrl}/chat/completions`, {
      model: 'm',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'Hello from another model.' },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(result.status, result.text).toBe(200);
    expect(messageOf(result.json)['content']).toBe(`You said: thanks\n${expected}`);
  });
});
