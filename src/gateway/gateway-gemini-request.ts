import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import type { AssistantMessage, ContentPart, ToolCall } from '../core/message.js';
import type { ReasoningEffort, ReasoningOptions } from '../core/reasoning-options.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { badRequest, echoed } from './gateway-errors.js';
import type { ClientHistory, EchoedReasoning } from './gateway-front-door-handles.js';
import { omittedBlockText } from './gateway-messages-request.js';

/**
 * Reading a Gemini `generateContent` request (WIRE §4.1) into canonical history (SPEC §2). The
 * client (Gemini CLI, `@google/genai`) holds the conversation and sends all of it as `contents`:
 *
 * - `systemInstruction` (a string or a content of text parts) is the system prompt.
 * - A `user` content's `functionResponse` parts are tool messages (one per call, in order; the
 *   same response twice in one content — Gemini CLI repeats it after `--resume` — is one), its
 *   text parts one user message after them. Images and files become a short note.
 * - Consecutive `model` contents are one assistant turn: text parts its content, `functionCall`
 *   parts its calls (a call without an `id` gets one from its position, and the response
 *   without one answers the oldest unanswered call of that name), `thought: true` parts its
 *   readable reasoning, and every `thoughtSignature` the echoed handle. Google's placeholder
 *   signatures (`skip_thought_signature_validator`, which Gemini CLI writes in place of every
 *   call's signature on `--resume`) are no reasoning at all.
 * - `tools[].functionDeclarations` are the client's own tools (`parametersJsonSchema`, or the
 *   OpenAPI-style `parameters` with upper-case type names); hosted tools (`googleSearch`,
 *   `codeExecution`, `urlContext`, …) are refused with a 400 naming them, as on the Messages door.
 * - `generationConfig.thinkingConfig` chooses reasoning (`thinkingBudget: 0` off, a positive
 *   budget, `thinkingLevel` the effort); `includeThoughts` says whether the answer shows thought
 *   parts. `responseMimeType: "application/json"` (or a response schema) marks a structured side
 *   request. Sampling settings are left to the route.
 */

/** A parsed Gemini request. */
export interface GeminiDoorRequest {
  model: string | undefined;
  stream: boolean;
  history: ClientHistory;
  tools: ToolDefinition[];
  reasoning: Partial<ReasoningOptions> | undefined;
  /** `thinkingConfig.includeThoughts`: the answer carries thought parts. */
  includeThoughts: boolean;
  /** A structured-output side request (Gemini CLI's JSON helpers): never a conversation of its own. */
  sideRequest: boolean;
}

/** Google's documented placeholder signatures (WIRE §4.4): they stand for a signature the client does not hold. */
const PLACEHOLDER_SIGNATURES = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

/** Tool kinds Google runs on its side (`Tool` fields other than `functionDeclarations`). */
const HOSTED_TOOL_KEYS = [
  'googleSearch',
  'googleSearchRetrieval',
  'codeExecution',
  'urlContext',
  'retrieval',
  'googleMaps',
  'computerUse',
  'fileSearch',
  'enterpriseWebSearch',
];

/** Parses and validates `body` for the model named in the path; throws a 400 naming the bad field. */
export function parseGeminiRequest(body: unknown, target: { model: string; stream: boolean }): GeminiDoorRequest {
  if (!isJsonObject(body)) throw badRequest('the request body must be a JSON object with a "contents" array');
  // `countTokens` may wrap the request (`{"generateContentRequest": {...}}`).
  const request = isJsonObject(body['generateContentRequest']) ? body['generateContentRequest'] : body;
  const contents = request['contents'];
  if (!Array.isArray(contents) || contents.length === 0) {
    throw badRequest('"contents" must be a non-empty array of contents', 'contents');
  }
  const history: ClientHistory = { messages: [], echoes: new Map() };
  const system = systemText(request['systemInstruction']);
  if (system) history.messages.push({ role: 'system', content: system });
  new ContentReader(history).readAll(contents);
  if (!history.messages.some((message) => message.role !== 'system')) {
    throw badRequest('"contents" holds no part the gateway can read', 'contents');
  }
  const config = isJsonObject(request['generationConfig']) ? request['generationConfig'] : {};
  const thinking = isJsonObject(config['thinkingConfig']) ? config['thinkingConfig'] : undefined;
  return {
    model: target.model,
    stream: target.stream,
    history,
    tools: parseTools(request['tools']),
    reasoning: parseThinking(thinking),
    includeThoughts: thinking?.['includeThoughts'] === true,
    sideRequest:
      config['responseMimeType'] === 'application/json' ||
      config['responseSchema'] !== undefined ||
      config['responseJsonSchema'] !== undefined,
  };
}

function systemText(instruction: unknown): string {
  if (instruction === undefined || instruction === null) return '';
  if (typeof instruction === 'string') return instruction;
  if (!isJsonObject(instruction) || !Array.isArray(instruction['parts'])) {
    throw badRequest('"systemInstruction" must be a string or a content with text parts', 'systemInstruction');
  }
  return instruction['parts']
    .filter((part): part is JsonObject => isJsonObject(part) && typeof part['text'] === 'string')
    .map((part) => part['text'] as string)
    .join('\n\n');
}

/** One assistant turn being read (consecutive model contents). */
interface OpenTurn {
  texts: string[];
  calls: ToolCall[];
  reasoning: EchoedReasoning[];
  thoughts: string[];
}

/** Reads contents in order into the history. */
class ContentReader {
  private turn: OpenTurn | null = null;
  /** Calls of the newest assistant turn not answered yet (responses without an id pair by name). */
  private unanswered: ToolCall[] = [];

  constructor(private readonly history: ClientHistory) {}

  readAll(contents: readonly unknown[]): void {
    contents.forEach((content, index) => {
      if (!isJsonObject(content)) throw badRequest(`contents[${index}] must be an object`, 'contents');
      const parts = content['parts'];
      if (parts !== undefined && (!Array.isArray(parts) || !parts.every(isJsonObject))) {
        throw badRequest(`contents[${index}].parts must be an array of parts`, 'contents');
      }
      const role = content['role'] ?? 'user';
      if (role === 'model') this.model(parts ?? [], index);
      else if (role === 'user' || role === 'function') this.user(parts ?? []);
      else throw badRequest(`contents[${index}].role must be "user" or "model"`, 'contents');
    });
    this.closeTurn();
  }

  private model(parts: readonly JsonObject[], index: number): void {
    const turn = (this.turn ??= { texts: [], calls: [], reasoning: [], thoughts: [] });
    parts.forEach((part, position) => {
      const signature = part['thoughtSignature'];
      if (typeof signature === 'string' && signature !== '' && !PLACEHOLDER_SIGNATURES.has(signature)) {
        // One handle rides on several parts of an answer: each distinct value is one echo.
        if (!turn.reasoning.some((entry) => entry.value === signature)) {
          turn.reasoning.push({
            field: `contents[${index}].parts[${position}].thoughtSignature`,
            value: signature,
            text: '',
          });
        }
      }
      if (part['thought'] === true) {
        if (typeof part['text'] === 'string' && part['text'] !== '') turn.thoughts.push(part['text']);
        return;
      }
      const call = part['functionCall'];
      if (isJsonObject(call)) {
        if (typeof call['name'] !== 'string' || call['name'] === '') {
          throw badRequest(`contents[${index}].parts[${position}]: a functionCall needs a "name"`, 'contents');
        }
        const id =
          typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : `gemini-call-${index}-${position}`;
        turn.calls.push({
          id,
          type: 'function',
          function: { name: call['name'], arguments: JSON.stringify(isJsonObject(call['args']) ? call['args'] : {}) },
        });
      } else if (typeof part['text'] === 'string') turn.texts.push(part['text']);
    });
  }

  private user(parts: readonly JsonObject[]): void {
    this.closeTurn();
    const texts: ContentPart[] = [];
    const seen = new Set<string>();
    for (const part of parts) {
      const response = part['functionResponse'];
      if (isJsonObject(response)) {
        const key = JSON.stringify([response['id'] ?? null, response['name'] ?? null, response['response'] ?? null]);
        if (seen.has(key)) continue;
        seen.add(key);
        this.history.messages.push({
          role: 'tool',
          tool_call_id: this.answeredCall(response),
          content: responseText(response),
        });
      } else if (typeof part['text'] === 'string') {
        if (part['thought'] !== true && part['text'] !== '') texts.push({ type: 'text', text: part['text'] });
      } else {
        const kind = Object.keys(part).find((key) => key !== 'thoughtSignature') ?? 'part';
        texts.push({ type: 'text', text: omittedBlockText(kind) });
      }
    }
    if (texts.length === 0) return;
    const only = texts.length === 1 ? texts[0] : undefined;
    this.history.messages.push({ role: 'user', content: only ? String(only['text']) : texts });
  }

  /** The call a function response answers: its `id`, else the oldest unanswered call of its name. */
  private answeredCall(response: JsonObject): string {
    const id = response['id'];
    const byId = typeof id === 'string' && id !== '' ? this.unanswered.findIndex((call) => call.id === id) : -1;
    const byName = byId >= 0 ? byId : this.unanswered.findIndex((call) => call.function.name === response['name']);
    const [call] = byName >= 0 ? this.unanswered.splice(byName, 1) : [];
    if (call) return call.id;
    return typeof id === 'string' ? id : String(response['name'] ?? '');
  }

  private closeTurn(): void {
    const turn = this.turn;
    this.turn = null;
    if (!turn) return;
    // A turn of thoughts alone (Gemini CLI keeps none) has nothing the route can take.
    if (turn.texts.length === 0 && turn.calls.length === 0 && turn.reasoning.length === 0) return;
    const message: AssistantMessage = {
      role: 'assistant',
      content: turn.texts.length > 0 ? turn.texts.join('') : null,
    };
    if (turn.calls.length > 0) message.tool_calls = turn.calls;
    this.unanswered = [...turn.calls];
    const index = this.history.messages.length;
    this.history.messages.push(message);
    const thoughts = turn.thoughts.join('');
    const reasoning =
      turn.reasoning.length > 0 || thoughts === ''
        ? turn.reasoning
        : [{ field: 'thought parts', value: undefined, text: '' }];
    if (reasoning.length === 0) return;
    const [first, ...rest] = reasoning;
    this.history.echoes.set(index, { reasoning: [{ ...(first as EchoedReasoning), text: thoughts }, ...rest] });
  }
}

/** A function response as the tool message text: `output` / `result` / `content` text, `error` as a failure, else the JSON. */
function responseText(response: JsonObject): string {
  const value = response['response'];
  if (typeof value === 'string') return value;
  if (!isJsonObject(value)) return JSON.stringify(value ?? null);
  for (const key of ['output', 'result', 'content']) {
    if (typeof value[key] === 'string' && Object.keys(value).length === 1) return value[key];
  }
  if (typeof value['error'] === 'string' && Object.keys(value).length === 1) {
    return /^error\b/i.test(value['error']) ? value['error'] : `error: ${value['error']}`;
  }
  return JSON.stringify(value);
}

function parseTools(tools: unknown): ToolDefinition[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw badRequest('"tools" must be an array', 'tools');
  const hosted: string[] = [];
  const definitions: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    if (!isJsonObject(tool)) throw badRequest(`tools[${index}] must be an object`, 'tools');
    for (const key of HOSTED_TOOL_KEYS) if (tool[key] !== undefined) hosted.push(key);
    const declarations = tool['functionDeclarations'];
    if (declarations === undefined) return;
    if (!Array.isArray(declarations))
      throw badRequest(`tools[${index}].functionDeclarations must be an array`, 'tools');
    declarations.forEach((declaration, position) => {
      if (!isJsonObject(declaration) || typeof declaration['name'] !== 'string') {
        throw badRequest(`tools[${index}].functionDeclarations[${position}] must be an object with a "name"`, 'tools');
      }
      definitions.push({
        name: declaration['name'],
        description: typeof declaration['description'] === 'string' ? declaration['description'] : '',
        parameters: declarationSchema(declaration),
      });
    });
  });
  if (hosted.length > 0) {
    throw badRequest(
      `hosted tools are not available through the gateway: ${hosted.map(echoed).join(', ')}; the route only calls tools the client runs (remove them, or turn the feature off in the client)`,
      'tools',
      'unsupported_tool',
    );
  }
  return definitions;
}

/** A declaration's argument schema as JSON Schema (`parameters` types are OpenAPI's upper-case names). */
function declarationSchema(declaration: JsonObject): JsonObject {
  const jsonSchema = declaration['parametersJsonSchema'];
  if (isJsonObject(jsonSchema)) return jsonSchema;
  const parameters = declaration['parameters'];
  if (isJsonObject(parameters)) return lowerCaseTypes(parameters) as JsonObject;
  return { type: 'object', properties: {} };
}

function lowerCaseTypes(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(lowerCaseTypes);
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined) continue;
    copy[key] = key === 'type' && typeof entry === 'string' ? entry.toLowerCase() : lowerCaseTypes(entry);
  }
  return copy;
}

/** `thinkingLevel` in the engine's terms. */
const LEVELS: Readonly<Record<string, ReasoningEffort>> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
};

function parseThinking(thinking: JsonObject | undefined): Partial<ReasoningOptions> | undefined {
  if (!thinking) return undefined;
  const budget = thinking['thinkingBudget'];
  if (budget === 0) return { enabled: false };
  const options: Partial<ReasoningOptions> = { enabled: true };
  if (typeof budget === 'number' && Number.isInteger(budget) && budget > 0) options.budgetTokens = budget;
  const level = thinking['thinkingLevel'];
  const effort = typeof level === 'string' ? LEVELS[level.toLowerCase()] : undefined;
  if (effort) options.effort = effort;
  return options;
}
