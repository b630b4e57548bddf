import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { DoorAnswer, DoorProtocol } from './probe-door-protocols.js';
import { PROBE_TOOL } from './probe-prompts.js';

/**
 * The Gemini door (SPEC §26.9) as Gemini CLI 0.61.0 speaks it (docs/gateway.md "Gemini CLI"):
 * streamed `streamGenerateContent` with `thinkingConfig.includeThoughts`, the client's function
 * declarations, Google's key header, and no session id anywhere, so the door finds the
 * conversation by its history. Of an answer the client keeps what {@link geminiCliKeptParts}
 * keeps, each part's `thoughtSignature` as returned. After `gemini --resume` it sends
 * what it saved on disk: each function call's signature replaced by Google's placeholder
 * `skip_thought_signature_validator`, no signature on text parts, and each `functionResponse`
 * twice ({@link geminiCliResumedHistory}).
 */

/** Google's documented placeholder signature, as Gemini CLI writes it on a resume. */
export const GEMINI_PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator';

const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** The parts of the first candidate of a `generateContent` response. */
function answerParts(answer: JsonObject): JsonObject[] {
  const candidate = objects(answer['candidates'])[0];
  const content = candidate && isJsonObject(candidate['content']) ? candidate['content'] : {};
  return objects(content['parts']);
}

/**
 * What Gemini CLI keeps of a streamed answer's parts: thought parts shown, then dropped; text
 * parts that follow each other joined into the first (its signature kept, the others' lost); an
 * empty text part dropped, its signature with it; function calls as they came.
 */
export function geminiCliKeptParts(parts: readonly JsonObject[]): { kept: JsonObject[]; thoughts: string[] } {
  const kept: JsonObject[] = [];
  const thoughts: string[] = [];
  for (const part of parts) {
    if (part['thought'] === true) {
      thoughts.push(text(part['text']));
      continue;
    }
    if (typeof part['text'] !== 'string') {
      kept.push(part);
      continue;
    }
    if (part['text'] === '') continue;
    const last = kept[kept.length - 1];
    if (last && typeof last['text'] === 'string') last['text'] = `${last['text']}${part['text']}`;
    else kept.push({ ...part });
  }
  return { kept, thoughts };
}

/** What the client reads and keeps of an answer's chunks. */
function readGeminiChunks(chunks: readonly JsonObject[]): DoorAnswer {
  const { kept, thoughts } = geminiCliKeptParts(chunks.flatMap(answerParts));
  const closing = chunks.findLast((chunk) => isJsonObject(chunk['usageMetadata']));
  const usage = closing && isJsonObject(closing['usageMetadata']) ? closing['usageMetadata'] : {};
  return {
    items: [{ role: 'model', parts: kept }],
    reasoning: thoughts.join(''),
    text: kept.map((part) => text(part['text'])).join(''),
    calls: kept.flatMap((part) => {
      const call = part['functionCall'];
      return isJsonObject(call) ? [{ id: text(call['id']), name: text(call['name']) }] : [];
    }),
    usage: {
      input: count(usage['promptTokenCount']),
      output: count(usage['candidatesTokenCount']) + count(usage['thoughtsTokenCount']),
    },
  };
}

/**
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, as Gemini CLI sends it (the
 * `@google/genai` SDK's `generateContentStream`).
 */
export const GEMINI_DOOR: DoorProtocol = {
  name: 'gemini',
  label: 'POST /v1beta/models/{model}:streamGenerateContent',
  path: (model) => `/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
  headers: { 'x-goog-api-key': 'hermes-probe' },
  body: (history, options) => ({
    contents: [...history],
    systemInstruction: { role: 'user', parts: [{ text: options.system }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: PROBE_TOOL.name,
            description: PROBE_TOOL.description,
            parametersJsonSchema: PROBE_TOOL.parameters,
          },
        ],
      },
    ],
    generationConfig: { thinkingConfig: { includeThoughts: true } },
  }),
  userItem: (content) => ({ role: 'user', parts: [{ text: content }] }),
  read: (answer) => readGeminiChunks([answer]),
  readStream: readGeminiChunks,
  toolResults: (calls, result) => [
    {
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: { id: call.id, name: call.name, response: { output: result } },
      })),
    },
  ],
  resumed: geminiCliResumedHistory,
};

/**
 * A history as Gemini CLI sends it after `--resume`: every function call signed with the
 * placeholder, text parts unsigned, each `functionResponse` part twice.
 */
export function geminiCliResumedHistory(history: readonly JsonValue[]): JsonValue[] {
  return history.map((content) => {
    if (!isJsonObject(content)) return content;
    const parts = objects(content['parts']).flatMap((part): JsonObject[] => {
      if (isJsonObject(part['functionResponse'])) return [part, structuredClone(part)];
      const { thoughtSignature, ...unsigned } = part;
      if (isJsonObject(part['functionCall'])) return [{ ...unsigned, thoughtSignature: GEMINI_PLACEHOLDER_SIGNATURE }];
      return thoughtSignature === undefined ? [part] : [unsigned];
    });
    return { ...content, parts };
  });
}
