import type { JsonObject, JsonValue } from '../core/json.js';
import { classifyFieldRejection } from '../replay/replay-field-rejection.js';
import type { Carrier, RouteKey, RouteProfile } from '../replay/replay-route-profile.js';
import { CARRIERS } from '../replay/replay-types.js';
import type { SessionStore } from '../storage/session-store.js';

/** The session model_config key holding learned verdicts (SPEC §13.3). */
export const REJECTED_CARRIERS_KEY = 'reasoning_rejected_carriers';

/**
 * Reads the session-level verdicts for one route key from model_config: a list of
 * `[provider, host, model, [fields]]`; malformed entries are skipped (SPEC §13.3 loading).
 */
export function sessionRejectedCarriers(modelConfig: JsonObject, key: RouteKey): Carrier[] {
  const entries = modelConfig[REJECTED_CARRIERS_KEY];
  if (!Array.isArray(entries)) return [];
  const fields = new Set<Carrier>();
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 4 || !Array.isArray(entry[3])) continue;
    const [provider, host, model, list] = entry as [JsonValue, JsonValue, JsonValue, JsonValue[]];
    if (provider !== key.provider || host !== key.host || model !== key.model) continue;
    for (const field of list) if (CARRIERS.includes(field as Carrier)) fields.add(field as Carrier);
  }
  return [...fields];
}

/** Union of session-level and store-wide verdicts for the route (SPEC §13.3, §23.1). */
export async function loadRejectedCarriers(
  store: SessionStore,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
): Promise<Carrier[]> {
  const fields = new Set(sessionRejectedCarriers(modelConfig, profile.key));
  const stored = await store.getVerdict(profile.routeKey);
  for (const field of stored?.fields ?? []) if (CARRIERS.includes(field as Carrier)) fields.add(field as Carrier);
  return CARRIERS.filter((carrier) => fields.has(carrier));
}

/**
 * Decides which carriers a 4xx error body teaches us to stop sending (SPEC §13.1–§13.3): only on
 * chat-completions, never `reasoning_content` on a must-echo route, and only fields not already
 * known — an empty result means "no retry" (prevents loops).
 */
export function fieldsToLearn(
  profile: RouteProfile,
  errorBody: string,
  carriersSent: readonly Carrier[],
  alreadyRejected: readonly Carrier[],
): Carrier[] {
  if (profile.route.api !== 'chat_completions') return [];
  // The same must-echo answer the request was built with: a user route row (SPEC §23.4) may
  // declare or deny must-echo, and that decides here too.
  const mustEcho = profile.mustEchoFamily !== null;
  const named = classifyFieldRejection(errorBody, carriersSent, { mustEcho });
  return named.filter((field) => !alreadyRejected.includes(field) && !(mustEcho && field === 'reasoning_content'));
}

/**
 * Persists a learned verdict: the session's model_config (merging patch of the whole list) and
 * the store-wide verdict table.
 */
export async function persistVerdict(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
  fields: readonly Carrier[],
  errorText: string,
): Promise<JsonObject> {
  const { key } = profile;
  const existing = Array.isArray(modelConfig[REJECTED_CARRIERS_KEY])
    ? (modelConfig[REJECTED_CARRIERS_KEY] as JsonValue[])
    : [];
  const merged = new Set<string>([...sessionRejectedCarriers(modelConfig, key), ...fields]);
  const others = existing.filter(
    (entry) => !(Array.isArray(entry) && entry[0] === key.provider && entry[1] === key.host && entry[2] === key.model),
  );
  const list: JsonValue[] = [...others, [key.provider, key.host, key.model, [...merged].sort()]];
  const config = await store.patchModelConfig(sessionId, { [REJECTED_CARRIERS_KEY]: list });
  await store.recordVerdict({
    routeKey: profile.routeKey,
    provider: key.provider,
    host: key.host,
    model: key.model,
    fields: [...merged].sort(),
    errorText: errorText.slice(0, 2000),
  });
  return config;
}
