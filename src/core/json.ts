/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object. Provider payloads and opaque carriers are kept in this shape, verbatim. */
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

/** True when `value` is a plain (non-array, non-null) object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
