import { isJsonObject, type JsonObject } from '../core/json.js';

/**
 * The private carrier record (SPEC §7): a Hermes-only `reasoning_details` entry that keeps the
 * provider-specific opaque fields no other carrier has room for — the Gemini OpenAI-compat
 * message-level thought signature and GitHub Copilot's `reasoning_opaque` / `reasoning_text`.
 * Capture lives here (pure); lifting the record back onto the wire for its own route is the
 * replay engine's job (SPEC §7.4–§7.5).
 */

/** `type` of the private record entry. */
export const NATIVE_RECORD_TYPE = 'hermes.native_assistant';

/** The private record (SPEC §7.1). Each field is present only when it was captured. */
export interface CarrierRecord extends JsonObject {
  type: typeof NATIVE_RECORD_TYPE;
  /** Gemini message-level signature, always normalised to the nested `google` shape. */
  extra_content?: { google: { thought_signature: string } };
  reasoning_opaque?: string;
  reasoning_text?: string;
}

/** The values a record is built from. */
export interface CarrierValues {
  signature?: string | undefined;
  opaque?: string | undefined;
  text?: string | undefined;
}

function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * The message-level Gemini thought signature of a message or delta, when it carries a
 * non-blank one: `extra_content.google.thought_signature`, else the flat
 * `extra_content.thought_signature`, else a top-level `thought_signature` (gemini-2.5 on the
 * OpenAI-compat endpoint sent both the nested and the top-level form, fixture
 * `gemini-openai-compat/pydantic-compatible-api-tool-calls-without-id`).
 */
export function messageThoughtSignature(source: JsonObject): string | undefined {
  const extra = source['extra_content'];
  if (isJsonObject(extra)) {
    const google = extra['google'];
    if (isJsonObject(google) && isNonBlank(google['thought_signature'])) return google['thought_signature'];
    if (isNonBlank(extra['thought_signature'])) return extra['thought_signature'];
  }
  if (isNonBlank(source['thought_signature'])) return source['thought_signature'];
  return undefined;
}

/** Builds a record from captured values; undefined when none exists (SPEC §7.1). */
export function buildCarrierRecord(values: CarrierValues): CarrierRecord | undefined {
  const record: CarrierRecord = { type: NATIVE_RECORD_TYPE };
  let captured = false;
  if (isNonBlank(values.signature)) {
    record.extra_content = { google: { thought_signature: values.signature } };
    captured = true;
  }
  if (isNonEmpty(values.opaque)) {
    record.reasoning_opaque = values.opaque;
    captured = true;
  }
  if (isNonEmpty(values.text)) {
    record.reasoning_text = values.text;
    captured = true;
  }
  return captured ? record : undefined;
}

/**
 * Captures the record from a non-streaming response message (SPEC §7.2). Copilot's
 * `reasoning_opaque` / `reasoning_text` are read from the top level of the message; they are
 * captured wherever they appear, because only a `githubcopilot.com` route ever gets them back.
 */
export function carrierRecordFromMessage(message: unknown): CarrierRecord | undefined {
  if (!isJsonObject(message)) return undefined;
  return buildCarrierRecord({
    signature: messageThoughtSignature(message),
    opaque: typeof message['reasoning_opaque'] === 'string' ? message['reasoning_opaque'] : undefined,
    text: typeof message['reasoning_text'] === 'string' ? message['reasoning_text'] : undefined,
  });
}

/**
 * Stream accumulator for the record (SPEC §7.3). Feed every delta in order, then read
 * {@link StreamCarriers.record} at the end.
 */
export class StreamCarriers {
  private signature: string | undefined;
  private opaque: string | undefined;
  private text = '';

  /**
   * Accumulates one delta: the signature — last non-blank wins; `reasoning_opaque` — last
   * non-empty wins (Claude-on-Copilot emits a fresh opaque before each tool call, superseding
   * the earlier ones); `reasoning_text` — fragments concatenated. Returns the readable fragment
   * to display for this delta: `reasoningFragment` when non-empty, else the `reasoning_text`
   * fragment, else undefined.
   */
  feed(delta: JsonObject, reasoningFragment?: string): string | undefined {
    const signature = messageThoughtSignature(delta);
    if (signature !== undefined) this.signature = signature;
    if (isNonEmpty(delta['reasoning_opaque'])) this.opaque = delta['reasoning_opaque'];
    let carrierFragment: string | undefined;
    if (isNonEmpty(delta['reasoning_text'])) {
      this.text += delta['reasoning_text'];
      carrierFragment = delta['reasoning_text'];
    }
    return isNonEmpty(reasoningFragment) ? reasoningFragment : carrierFragment;
  }

  /** The record accumulated so far; undefined when nothing was captured. */
  record(): CarrierRecord | undefined {
    return buildCarrierRecord({ signature: this.signature, opaque: this.opaque, text: this.text });
  }
}

/** True for any private native record entry (a type ending in `.native_assistant`, SPEC §7.6). */
export function isNativeRecordEntry(entry: unknown): boolean {
  return isJsonObject(entry) && typeof entry['type'] === 'string' && entry['type'].endsWith('.native_assistant');
}

/** The Hermes record inside a message's `reasoning_details`, if there is one. */
export function findCarrierRecord(details: readonly unknown[] | null | undefined): CarrierRecord | undefined {
  if (!details) return undefined;
  for (const entry of details) {
    if (isJsonObject(entry) && entry['type'] === NATIVE_RECORD_TYPE) return entry as CarrierRecord;
  }
  return undefined;
}

/**
 * `details` with `record` appended (a copy; the input is never mutated). Returns `details`
 * unchanged when there is no record, and null when the result would be empty.
 */
export function appendCarrierRecord(
  details: readonly JsonObject[] | null | undefined,
  record: CarrierRecord | undefined,
): JsonObject[] | null {
  const entries = details ? [...details] : [];
  if (record) entries.push(record);
  return entries.length > 0 ? entries : null;
}
