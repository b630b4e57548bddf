import { GoogleGenAI, type Content, type GenerateContentResponse, type Part } from '@google/genai';
import {
  READ_FILE_SCHEMA,
  runClientTool,
  type DoorAnswer,
  type DoorConversation,
  type TurnOptions,
} from './front-door-helpers.js';

/**
 * The Gemini door driven the way Gemini CLI and `@google/genai` apps drive it: the client holds
 * `contents`, runs its own tools and sends everything back every turn. A streamed answer is
 * assembled as Gemini CLI assembles it (consecutive text parts of one kind joined, every part's
 * `thoughtSignature` kept), and thought parts are dropped from the history the client keeps,
 * as Gemini CLI drops them.
 *
 * `geminiDoorConversation(url, model)` is the Gemini door as a way in for the matrix tests: one
 * `turn()` is one user message and the requests of its tool loop.
 */

/** A `@google/genai` client of the gateway at `url`. */
export function geminiClient(url: string, apiKey = 'client-key', headers: Record<string, string> = {}): GoogleGenAI {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: url, headers } });
}

/** The client's model content of one response (or of every chunk of a stream, joined). */
export function modelContentOf(responses: readonly GenerateContentResponse[]): Content {
  const parts: Part[] = [];
  for (const response of responses) {
    for (const part of response.candidates?.[0]?.content?.parts ?? []) {
      const last = parts.at(-1);
      const joinable =
        last !== undefined &&
        typeof part.text === 'string' &&
        typeof last.text === 'string' &&
        Boolean(last.thought) === Boolean(part.thought) &&
        !(last.thoughtSignature && part.thoughtSignature);
      if (joinable) {
        last.text = `${last.text ?? ''}${part.text ?? ''}`;
        if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
      } else parts.push({ ...part });
    }
  }
  return { role: 'model', parts };
}

/** What the tests read of an answer. */
export function geminiDoorAnswer(content: Content): DoorAnswer {
  const parts = content.parts ?? [];
  return {
    reasoning: parts
      .filter((part) => part.thought)
      .map((part) => part.text ?? '')
      .join(''),
    handle: parts.find((part) => part.thoughtSignature)?.thoughtSignature,
    text: parts
      .filter((part) => !part.thought && typeof part.text === 'string')
      .map((part) => part.text)
      .join(''),
    toolCalls: parts.filter((part) => part.functionCall).length,
  };
}

/** How the client keeps history: Gemini CLI drops thought parts; `keepThoughts` keeps them (a plain genai app). */
export interface GeminiConversationOptions {
  keepThoughts?: boolean;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  apiKey?: string;
}

/** A conversation held by the client (Gemini CLI's way by default). */
export function geminiConversation(client: GoogleGenAI, model: string, options: GeminiConversationOptions = {}) {
  const contents: Content[] = [];
  const config = {
    tools: [
      {
        functionDeclarations: [
          { name: 'read_file', description: 'Read a file', parametersJsonSchema: READ_FILE_SCHEMA },
        ],
      },
    ],
    thinkingConfig: { includeThoughts: true },
    systemInstruction: 'You are a coding agent.',
  };
  const send = async (turn: TurnOptions): Promise<Content> => {
    const request = { model: turn.model ?? model, contents, config };
    if (!turn.stream) return modelContentOf([await client.models.generateContent(request)]);
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await client.models.generateContentStream(request)) chunks.push(chunk);
    return modelContentOf(chunks);
  };
  return {
    contents,
    /** One user turn: requests until an answer without calls (bounded); returns each model content as answered. */
    async turn(text: string, turn: TurnOptions): Promise<Content[]> {
      contents.push({ role: 'user', parts: [{ text }] });
      const answers: Content[] = [];
      for (let step = 0; step < 4; step += 1) {
        const answer = await send(turn);
        answers.push(answer);
        const kept = options.keepThoughts ? answer.parts : (answer.parts ?? []).filter((part) => !part.thought);
        contents.push({ role: 'model', parts: kept ?? [] });
        const calls = (answer.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []));
        if (calls.length === 0) return answers;
        contents.push({
          role: 'user',
          parts: calls.map((call) => ({
            functionResponse: {
              ...(call.id ? { id: call.id } : {}),
              name: call.name ?? '',
              response: { output: runClientTool(call.name ?? '', call.args ?? {}) },
            },
          })),
        });
      }
      throw new Error('no final answer after 4 requests');
    },
  };
}

/** A conversation that goes on with `contents` (held so far elsewhere) against the gateway at `url`. */
export function geminiConversationOn(url: string, contents: Content[], model = 'deepseek'): DoorConversation {
  const conversation = geminiDoorConversation(url, model);
  conversation.contents.push(...contents);
  return conversation;
}

/** The Gemini door as a way in: a conversation whose turns come back as {@link DoorAnswer}s. */
export function geminiDoorConversation(
  url: string,
  model: string,
  options: GeminiConversationOptions = {},
): DoorConversation & { contents: Content[] } {
  const conversation = geminiConversation(geminiClient(url, options.apiKey, options.headers), model, options);
  return {
    contents: conversation.contents,
    turn: async (text, turn) => (await conversation.turn(text, turn)).map(geminiDoorAnswer),
  };
}

/**
 * What Gemini CLI sends on `--resume`: every call's signature replaced with Google's placeholder
 * and every other signature dropped (thought parts were never kept).
 */
export function asResumedByGeminiCli(contents: Content[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    content.parts = (content.parts ?? [])
      .filter((part) => !part.thought)
      .map((part) => {
        const { thoughtSignature: _dropped, ...rest } = part;
        return part.functionCall ? { ...rest, thoughtSignature: 'skip_thought_signature_validator' } : rest;
      });
  }
}

/**
 * Spoils the handles of a conversation's first two answers, as the drop tests need: the first
 * answer's handle altered in one character (a random handle may already hold an 'x' there), the
 * second's replaced by `foreign` (another gateway's).
 */
export function spoilHandles(contents: Content[], foreign: string): void {
  const [first, second] = contents.filter((content) => content.role === 'model');
  const signed = first!.parts!.find((part) => part.thoughtSignature)!;
  const handle = signed.thoughtSignature!;
  signed.thoughtSignature = `${handle.slice(0, 40)}${handle[40] === 'x' ? 'y' : 'x'}${handle.slice(41)}`;
  second!.parts!.find((part) => part.thoughtSignature)!.thoughtSignature = foreign;
}
