import type { ScriptInput, ScriptMessage } from '../shared/scripted-model.js';
import {
  GEMINI_SKIP_SIGNATURE_SENTINEL,
  GEMINI_SKIP_SIGNATURE_SENTINEL_ALTERNATE,
  type GeminiContent,
  type GeminiPart,
} from '../../transports/gemini/gemini-wire.js';
import {
  emulatorModelGeneration,
  functionCallBinding,
  TEXT_BINDING,
  verifyPart,
  type EmulatorIssuer,
} from './gemini-emulator-signatures.js';
import { includeThoughtsViolation, invalidSignatureText } from './gemini-emulator-thinking-rules.js';

/**
 * The rules the Gemini emulator enforces, with Google's exact error texts (WIRE.md §4.5):
 * proto-JSON unknown fields, roles, altered or foreign signatures ("Corrupted thought
 * signature."), and Gemini 3's mandatory signature on the first function call of every step of
 * the current turn (AI Studio and Vertex word it differently).
 */

/** A Google error answer. */
export interface EmulatorFailure {
  status: number;
  statusName: string;
  message: string;
}

/** A validated request, ready for the scripted model. */
export interface EmulatorTurn {
  script: ScriptInput;
  includeThoughts: boolean;
}

/** Gemini API text for a missing signature (lbjlaq/Antigravity-Manager#3202, WIRE.md §4.5). */
export function aiStudioMissingSignatureText(name: string, position: number): string {
  return (
    'Function call is missing a thought_signature in functionCall parts. This is required for tools to work ' +
    'correctly, and missing thought_signature may lead to degraded model performance. Additional data, function ' +
    `call \`default_api:${name}\` , position ${position}. Please refer to ` +
    'https://ai.google.dev/gemini-api/docs/thought-signatures for more details.'
  );
}

/** Vertex AI text for a missing signature (GewoonJaap/gemini-cli-openai#156, WIRE.md §4.5). */
export function vertexMissingSignatureText(name: string, position: number): string {
  return (
    `Unable to submit request because function call \`${name}\` in the ${position}. content block is missing a ` +
    '`thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures'
  );
}

/** Text for an altered, moved or foreign signature (WIRE.md §4.5). */
export const CORRUPTED_SIGNATURE_TEXT = 'Corrupted thought signature.';

// Proto JSON accepts camelCase and snake_case field names; anything else is "Cannot find field".
const TOP_LEVEL_FIELDS = fields(
  'contents systemInstruction tools toolConfig generationConfig safetySettings cachedContent labels model',
);
const CONTENT_FIELDS = fields('role parts');
const PART_FIELDS = fields(
  'text thought thoughtSignature functionCall functionResponse inlineData fileData executableCode ' +
    'codeExecutionResult videoMetadata partMetadata mediaResolution',
);
const FUNCTION_CALL_FIELDS = fields('name args id partialArgs willContinue');

/** Validates a decoded body; returns the scripted-model input or the failure Google would answer. */
export function checkRequest(
  body: unknown,
  issuer: EmulatorIssuer,
  model: string,
): { ok: true; turn: EmulatorTurn } | { ok: false; failure: EmulatorFailure } {
  const invalid = (message: string) => ({
    ok: false as const,
    failure: { status: 400, statusName: 'INVALID_ARGUMENT', message },
  });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalid('Invalid JSON payload received. Expected an object.');
  }
  const record = body as Record<string, unknown>;
  const unknown = unknownField(record, TOP_LEVEL_FIELDS, '');
  if (unknown) return invalid(unknown);
  const contents = record['contents'];
  if (!Array.isArray(contents) || contents.length === 0) {
    return invalid('* GenerateContentRequest.contents: contents is not specified\n');
  }
  for (const [contentIndex, content] of (contents as Record<string, unknown>[]).entries()) {
    const at = `contents[${contentIndex}]`;
    const contentUnknown = unknownField(content, CONTENT_FIELDS, at);
    if (contentUnknown) return invalid(contentUnknown);
    if (content['role'] !== 'user' && content['role'] !== 'model')
      return invalid('Please use a valid role: user, model.');
    const parts = content['parts'];
    if (!Array.isArray(parts) || parts.length === 0) {
      return invalid(`* GenerateContentRequest.${at}.parts: contents.parts must not be empty.\n`);
    }
    for (const [partIndex, part] of (parts as Record<string, unknown>[]).entries()) {
      const partUnknown = unknownField(part, PART_FIELDS, `${at}.parts[${partIndex}]`);
      if (partUnknown) return invalid(partUnknown);
      const call = part['functionCall'] ?? part['function_call'];
      if (call !== undefined) {
        const callUnknown = unknownField(
          call as Record<string, unknown>,
          FUNCTION_CALL_FIELDS,
          `${at}.parts[${partIndex}].function_call`,
        );
        if (callUnknown) return invalid(callUnknown);
      }
    }
  }
  const thoughtsWithoutThinking = includeThoughtsViolation(record);
  if (thoughtsWithoutThinking) return invalid(thoughtsWithoutThinking);
  const typedContents = contents as GeminiContent[];
  const recovered = verifySignatures(typedContents, issuer, model);
  if (recovered === null) return invalid(invalidSignatureText(issuer, CORRUPTED_SIGNATURE_TEXT));
  const missing = missingSignature(typedContents, issuer, model);
  if (missing) return invalid(missing);
  return {
    ok: true,
    turn: { script: scriptInput(record, typedContents, recovered), includeThoughts: includesThoughts(record) },
  };
}

/** Verifies every non-sentinel signature; returns each model content's recovered reasoning, or null on the first bad one. */
function verifySignatures(
  contents: GeminiContent[],
  issuer: EmulatorIssuer,
  model: string,
): Map<number, string> | null {
  const recovered = new Map<number, string>();
  for (const [index, content] of contents.entries()) {
    for (const part of content.parts) {
      const signature = signatureOf(part);
      if (signature === undefined || isSentinel(signature)) continue;
      if (content.role !== 'model') return null;
      const call = part.functionCall;
      const binding = call ? functionCallBinding(call.name ?? '', call.args) : TEXT_BINDING;
      const reasoning = verifyPart(issuer, model, binding, signature);
      if (reasoning === null) return null;
      if (!recovered.has(index)) recovered.set(index, reasoning);
    }
  }
  return recovered;
}

/**
 * Gemini 3: every step of the current turn (each model content after the last user content
 * holding text) needs a signature on its first function call. Older models do not validate.
 */
function missingSignature(contents: GeminiContent[], issuer: EmulatorIssuer, model: string): string | undefined {
  const generation = emulatorModelGeneration(model);
  if (generation === null || generation < 3) return undefined;
  let lastUserText = -1;
  contents.forEach((content, index) => {
    if (content.role === 'user' && content.parts.some((part) => typeof part.text === 'string')) lastUserText = index;
  });
  for (let index = lastUserText + 1; index < contents.length; index++) {
    const content = contents[index]!;
    if (content.role !== 'model') continue;
    const firstCall = content.parts.find((part) => part.functionCall);
    if (!firstCall || signatureOf(firstCall) !== undefined) continue;
    const name = firstCall.functionCall?.name ?? '';
    // Position: 1-based index of the content in `contents` (both texts count content blocks).
    return issuer === 'vertex'
      ? vertexMissingSignatureText(name, index + 1)
      : aiStudioMissingSignatureText(name, index + 1);
  }
  return undefined;
}

/**
 * Translates the request for the scripted model. Continuity rule: a model turn's reasoning is
 * the sealed reasoning carried by its first verified signature (signatures are what Gemini
 * needs back; thought parts need not return), else the text of its returned thought parts.
 */
function scriptInput(
  body: Record<string, unknown>,
  contents: GeminiContent[],
  recovered: Map<number, string>,
): ScriptInput {
  const messages: ScriptMessage[] = [];
  const system = body['systemInstruction'] as { parts?: GeminiPart[] } | undefined;
  const systemText = (system?.parts ?? []).map((part) => part.text ?? '').join('');
  if (systemText !== '') messages.push({ role: 'system', text: systemText });
  for (const [index, content] of contents.entries()) {
    if (content.role === 'model') {
      const message: ScriptMessage = { role: 'assistant', text: visibleText(content.parts) };
      const calls = content.parts.filter((part) => part.functionCall);
      if (calls.length > 0) {
        message.toolCalls = calls.map((part) => ({
          id: part.functionCall?.id ?? part.functionCall?.name ?? '',
          name: part.functionCall?.name ?? '',
          arguments: JSON.stringify(part.functionCall?.args ?? {}),
        }));
      }
      const thoughts = content.parts.filter((part) => part.thought === true).map((part) => part.text ?? '');
      const reasoning = recovered.get(index) ?? (thoughts.length > 0 ? thoughts.join('') : undefined);
      if (reasoning !== undefined) message.reasoning = reasoning;
      // SPEC §26.8: this emulator signs every content it issues (the first call, or the text), so
      // a content with the placeholder signature, or with no signature and no thought at all, is
      // one it did not issue: another model's, or another issuer's (AI Studio and Vertex never
      // take each other's signatures).
      const unsigned = content.parts.every((part) => {
        const signature = signatureOf(part);
        return signature === undefined || isSentinel(signature);
      });
      if (reasoning === undefined && unsigned) message.foreign = true;
      messages.push(message);
      continue;
    }
    const text = visibleText(content.parts);
    if (content.parts.some((part) => typeof part.text === 'string')) messages.push({ role: 'user', text });
    for (const part of content.parts) {
      const response = part.functionResponse;
      if (!response) continue;
      const result = response.response?.['result'];
      messages.push({
        role: 'tool',
        toolCallId: response.id ?? response.name,
        text: typeof result === 'string' ? result : JSON.stringify(response.response ?? {}),
      });
    }
  }
  const tools = ((body['tools'] ?? []) as Record<string, unknown>[]).flatMap((tool) =>
    ((tool['functionDeclarations'] ?? tool['function_declarations'] ?? []) as { name?: string }[]).map(
      (declaration) => declaration.name ?? '',
    ),
  );
  return { messages, tools };
}

function includesThoughts(body: Record<string, unknown>): boolean {
  const generation = (body['generationConfig'] ?? body['generation_config']) as Record<string, unknown> | undefined;
  const thinking = (generation?.['thinkingConfig'] ?? generation?.['thinking_config']) as
    Record<string, unknown> | undefined;
  return thinking?.['includeThoughts'] === true || thinking?.['include_thoughts'] === true;
}

function visibleText(parts: GeminiPart[]): string {
  return parts
    .filter((part) => typeof part.text === 'string' && part.thought !== true)
    .map((part) => part.text)
    .join('');
}

function signatureOf(part: GeminiPart): string | undefined {
  const value = part.thoughtSignature ?? part['thought_signature'];
  return typeof value === 'string' ? value : undefined;
}

function isSentinel(signature: string): boolean {
  return signature === GEMINI_SKIP_SIGNATURE_SENTINEL || signature === GEMINI_SKIP_SIGNATURE_SENTINEL_ALTERNATE;
}

function unknownField(value: unknown, allowed: Set<string>, at: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const key of Object.keys(value)) {
    if (allowed.has(key)) continue;
    // Google's proto-JSON wording, e.g. `Unknown name "extra_content" at 'contents[1].parts[0]': Cannot find field.`
    return at === ''
      ? `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`
      : `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
  }
  return undefined;
}

function fields(names: string): Set<string> {
  const set = new Set<string>();
  for (const name of names.split(' ')) {
    set.add(name);
    set.add(name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
  }
  return set;
}
