import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useE2e } from '../support/e2e.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import {
  assistants,
  makeGatewaySandbox,
  PERSONA_ROUTES,
  sentAssistants,
  startPersona,
  startTestGateway,
  storedMessages,
} from './gateway-test-helpers.js';

/**
 * (SPEC §19 gateway turn flow): the `openai` npm client against a RUNNING
 * gateway backed by the DeepSeek and OpenRouter emulators; three tool-calling turns on one
 * session id, a gateway restart on the same state.db before the third; every request the
 * emulator received carries the stored carriers. Streaming and non-streaming.
 */

const e2e = useE2e();

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

interface TurnAnswer {
  sessionId: string;
  content: string;
  reasoning: string;
}

/** One turn through the openai client; the session id comes back in the response header. */
async function turn(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  sessionId: string | undefined,
  stream: boolean,
): Promise<TurnAnswer> {
  const headers = sessionId ? { 'X-Hermes-Session-Id': sessionId } : undefined;
  if (!stream) {
    const { data, response } = await client.chat.completions
      .create({ model, messages }, headers ? { headers } : {})
      .withResponse();
    const message = data.choices[0]?.message as { content: string | null; reasoning_content?: string };
    return {
      sessionId: response.headers.get('x-hermes-session-id') ?? '',
      content: message.content ?? '',
      reasoning: message.reasoning_content ?? '',
    };
  }
  const { data, response } = await client.chat.completions
    .create({ model, messages, stream: true }, headers ? { headers } : {})
    .withResponse();
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  for await (const chunk of data) {
    const choice = chunk.choices[0];
    const delta = choice?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    content += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    finish = choice?.finish_reason ?? finish;
  }
  expect(finish).toBe('stop');
  return { sessionId: response.headers.get('x-hermes-session-id') ?? '', content, reasoning };
}

const CASES = [
  { persona: 'deepseek', stream: false },
  { persona: 'deepseek', stream: true },
  { persona: 'openrouter', stream: false },
  { persona: 'openrouter', stream: true },
] as const;

describe('the openai client against a running gateway (SPEC §19)', () => {
  it.each(CASES)(
    '$persona, stream=$stream: three tool turns on one session, restart before the third, carriers replayed as stored',
    async ({ persona, stream }) => {
      const { emulator, route } = await startPersona(persona);
      e2e.defer(() => emulator.close());
      const sandbox = makeGatewaySandbox();
      const model = PERSONA_ROUTES[persona].model;
      let gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace);
      let closed = false;
      e2e.defer(async () => {
        if (!closed) await gateway.close();
      });
      let client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });

      const questions = ['read the file notes.txt', 'list the files', 'read the file notes.txt'];
      const history: ChatMessage[] = [];
      const answers: TurnAnswer[] = [];
      let sessionId: string | undefined;
      for (const [index, question] of questions.entries()) {
        if (index === 2) {
          // Restart: a new gateway (new port) over the same state.db; the session lives in the store.
          await gateway.close();
          gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace);
          client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
        }
        // Clients resend the whole conversation; the gateway takes only the new user message.
        history.push({ role: 'user', content: question });
        const answer = await turn(client, model, history, sessionId, stream);
        history.push({ role: 'assistant', content: answer.content });
        sessionId ??= answer.sessionId;
        expect(answer.sessionId).toBe(sessionId);
        answers.push(answer);
      }
      await gateway.close();
      closed = true;

      const stored = await storedMessages(sandbox.dbPath, sessionId ?? '');
      expect(stored.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(questions);
      const storedAssistants = assistants(stored);
      // Each turn: a tool-call assistant message, then the answer.
      expect(storedAssistants.map((message) => message.tool_calls?.[0]?.function.name ?? 'answer')).toEqual([
        'read_file',
        'answer',
        'list_directory',
        'answer',
        'read_file',
        'answer',
      ]);
      // What the client saw is what was stored: the answer text and the reasoning of both messages of the turn.
      answers.forEach((answer, index) => {
        const own = storedAssistants.slice(index * 2, index * 2 + 2);
        expect(answer.content).toBe(own[1]?.content);
        expect(answer.reasoning).toBe(
          own.map((message) => message.reasoning ?? message.reasoning_content).join('\n\n'),
        );
        expect(answer.content).toContain(`Reasoning continuity: intact (${index * 2 + 1}/${index * 2 + 1}).`);
      });
      expect(answers[0]?.content).toContain('alpha beta');

      expectCarriersReplayed(persona, emulator, storedAssistants);
    },
  );
});

/** Every request replays each earlier stored assistant message's carriers exactly (WIRE/SPEC §5 route rows). */
function expectCarriersReplayed(
  persona: keyof typeof PERSONA_ROUTES,
  emulator: RunningChatEmulator,
  stored: ReturnType<typeof assistants>,
): void {
  expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200, 200, 200, 200]);
  emulator.requests.forEach((request, index) => {
    const sent = sentAssistants(request.body);
    // Request n replays the n assistant messages stored before it.
    expect(sent.length).toBe(index);
    sent.forEach((message, position) => {
      const original = stored[position];
      if (persona === 'deepseek') {
        // DeepSeek is must-echo (SPEC §4): reasoning_content on every replayed assistant message, verbatim.
        expect(typeof original?.reasoning_content).toBe('string');
        expect(message['reasoning_content']).toBe(original?.reasoning_content);
      } else {
        // OpenRouter reads reasoning_details (SPEC §5): byte-identical in the raw request.
        expect(original?.reasoning_details?.length).toBeGreaterThan(0);
        expect(message['reasoning_details']).toEqual(original?.reasoning_details);
        expect(request.raw).toContain(JSON.stringify(original?.reasoning_details));
      }
    });
  });
}
