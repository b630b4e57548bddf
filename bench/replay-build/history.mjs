// The bench history: one deterministic OpenRouter-shaped session in three formats: Hermes stored
// messages, the equivalent pi-ai context, and the equivalent Vercel AI SDK prompt
// (LanguageModelV3Prompt). Each turn is user → assistant (reasoning + signed/encrypted
// reasoning_details + one tool call) → tool result → assistant answer (reasoning + text).

import { seededRandom } from '../seeded-random.mjs';

export const ROUTE = {
  api: 'chat_completions',
  provider: 'openrouter',
  model: 'anthropic/claude-sonnet-4',
  baseUrl: 'https://openrouter.ai/api/v1',
};
const ORIGIN = { api: 'chat_completions', provider: 'openrouter', host: 'openrouter.ai', model: ROUTE.model };

const WORDS = 'the model considers which file to read next because the user asked about the build and tests'.split(' ');
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const prose = (next, bytes) => {
  let text = '';
  while (text.length < bytes) text += `${WORDS[Math.floor(next() * WORDS.length)]} `;
  return text.slice(0, bytes);
};
const blob = (next, bytes) => {
  let text = '';
  for (let index = 0; index < bytes; index++) text += BASE64[Math.floor(next() * 64)];
  return text;
};
const PI_USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const piAssistant = (content, stopReason, timestamp) => ({
  role: 'assistant',
  content,
  api: 'openai-completions',
  provider: 'openrouter',
  model: ROUTE.model,
  usage: PI_USAGE,
  stopReason,
  timestamp,
});

/** One turn (four messages) in the three formats. */
function makeTurn(next, turn) {
  const hermes = [];
  const pi = [];
  const ai = [];
  const userText = prose(next, 200 + Math.floor(next() * 600));
  hermes.push({ role: 'user', content: userText, timestamp: turn });
  pi.push({ role: 'user', content: userText, timestamp: turn });
  ai.push({ role: 'user', content: [{ type: 'text', text: userText }] });
  const reasoning = prose(next, 2048 + Math.floor(next() * 6144));
  const signature = blob(next, 400);
  const encrypted = blob(next, 1024 + Math.floor(next() * 3072));
  const callId = `call_${turn}`;
  const input = { path: `src/file-${turn}.ts`, limit: 200 };
  const withRecord = turn % 5 === 0;
  hermes.push({
    role: 'assistant',
    content: null,
    reasoning,
    reasoning_content: reasoning,
    reasoning_details: [
      { type: 'reasoning.text', text: reasoning, signature, format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.encrypted', data: encrypted, format: 'openai-responses-v1', id: `rs_${turn}`, index: 1 },
      ...(withRecord ? [{ type: 'hermes.native_assistant', reasoning_opaque: blob(next, 800) }] : []),
    ],
    tool_calls: [{ id: callId, type: 'function', function: { name: 'read_file', arguments: JSON.stringify(input) } }],
    finish_reason: 'tool_calls',
    origin: ORIGIN,
    timestamp: turn,
  });
  pi.push(
    piAssistant(
      [
        { type: 'thinking', thinking: reasoning, thinkingSignature: 'reasoning_content' },
        { type: 'toolCall', id: callId, name: 'read_file', arguments: input },
      ],
      'toolUse',
      turn,
    ),
  );
  ai.push({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: reasoning },
      { type: 'tool-call', toolCallId: callId, toolName: 'read_file', input },
    ],
  });
  const output = prose(next, 500 + Math.floor(next() * 1500));
  hermes.push({ role: 'tool', tool_call_id: callId, content: output, tool_name: 'read_file', timestamp: turn });
  pi.push({
    role: 'toolResult',
    toolCallId: callId,
    toolName: 'read_file',
    content: [{ type: 'text', text: output }],
    isError: false,
    timestamp: turn,
  });
  ai.push({
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: callId, toolName: 'read_file', output: { type: 'text', value: output } },
    ],
  });
  const answer = prose(next, 300 + Math.floor(next() * 900));
  const answerReasoning = prose(next, 2048 + Math.floor(next() * 2048));
  hermes.push({
    role: 'assistant',
    content: answer,
    reasoning: answerReasoning,
    reasoning_content: answerReasoning,
    origin: ORIGIN,
    timestamp: turn,
  });
  pi.push(
    piAssistant(
      [
        { type: 'thinking', thinking: answerReasoning, thinkingSignature: 'reasoning_content' },
        { type: 'text', text: answer },
      ],
      'stop',
      turn,
    ),
  );
  ai.push({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: answerReasoning },
      { type: 'text', text: answer },
    ],
  });
  return { hermes, pi, ai };
}

/** A history of `count` messages in the three formats (same seed, same history). */
export function makeHistory(count, seed = 42) {
  const next = seededRandom(seed);
  const history = [];
  const pi = [];
  const ai = [];
  let turn = 0;
  while (history.length < count) {
    turn += 1;
    const made = makeTurn(next, turn);
    history.push(...made.hermes);
    pi.push(...made.pi);
    ai.push(...made.ai);
  }
  return { history: history.slice(0, count), pi: { messages: pi.slice(0, count) }, prompt: ai.slice(0, count) };
}

/** The four Hermes messages of turn `turn` (fresh objects on every call: a new turn's stored messages). */
export function makeNextTurn(turn, seed = 7) {
  return makeTurn(seededRandom(seed + turn), turn).hermes;
}
