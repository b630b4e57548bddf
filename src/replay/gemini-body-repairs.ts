/**
 * The one-retry repair of a Gemini body whose thought signatures the provider refused (WIRE §8:
 * Gemini API "Corrupted thought signature.", Vertex AI "Unable to submit request because Thought
 * signature is not valid."): every signature sent is left out, and the first function call of
 * each model turn carries Google's documented placeholder instead (SPEC §26.2), so a Gemini 3 step
 * is never without one. Pure; the rejected body is left as it was.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';

/** The repaired body and how many signatures it took out. */
export interface GeminiSignatureRepair {
  body: JsonObject;
  removed: number;
}

function signatureKey(part: JsonObject): 'thoughtSignature' | 'thought_signature' | undefined {
  if (typeof part['thoughtSignature'] === 'string') return 'thoughtSignature';
  return typeof part['thought_signature'] === 'string' ? 'thought_signature' : undefined;
}

/** `body` with its real signatures replaced as described above; `placeholder` is the value Google documents. */
export function withoutRefusedSignatures(body: JsonObject, placeholder: string): GeminiSignatureRepair {
  const contents = Array.isArray(body['contents']) ? body['contents'] : [];
  let removed = 0;
  const repaired = contents.map((content): JsonValue => {
    if (!isJsonObject(content) || content['role'] !== 'model' || !Array.isArray(content['parts'])) return content;
    let placed = false;
    const parts = content['parts'].map((part): JsonValue => {
      if (!isJsonObject(part)) return part;
      const key = signatureKey(part);
      const copy: JsonObject = { ...part };
      if (key !== undefined && part[key] !== placeholder) {
        delete copy[key];
        removed += 1;
      }
      const call = part['functionCall'] ?? part['function_call'];
      if (call !== undefined && !placed) {
        placed = true;
        copy['thoughtSignature'] = placeholder;
      }
      return copy;
    });
    return { ...content, parts };
  });
  return { body: removed === 0 ? body : { ...body, contents: repaired }, removed };
}
