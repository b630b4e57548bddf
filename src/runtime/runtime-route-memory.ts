import type { JsonObject, JsonValue } from '../core/json.js';
import { REASONING_EFFORTS, type ReasoningEffort } from '../core/reasoning-options.js';
import {
  ANTHROPIC_REJECTED_THINKING_KEY,
  readRejectedThinking,
  withRejectedThinking,
} from '../replay/replay-recovery.js';
import type { Carrier, RouteKey, RouteLearned, RouteProfile, StandInKind } from '../replay/replay-route-profile.js';
import { CARRIERS } from '../replay/replay-route-profile.js';
import type { SessionStore, VerdictRecord } from '../storage/session-store.js';

/**
 * Route memory: the one module that reads and writes what a session learned about a route, in
 * the session's `model_config` and the store-wide verdict table (SPEC §9.4, §12, §13.3, §23.1,
 * §24.8). Recoveries (runtime-recovery.ts) decide what to learn; they persist it through here.
 *
 * model_config keys:
 * - {@link REJECTED_CARRIERS_KEY}: `[[provider, host, model, [fields]], …]` (SPEC §13.3), mirrored
 *   store-wide by `recordVerdict` (SPEC §23.1);
 * - `_anthropic_rejected_thinking`: fingerprints of rejected signed thinking (SPEC §9.4, §24.8);
 * - {@link ENCRYPTED_REPLAY_OFF_KEY}: route keys whose encrypted Responses reasoning is no longer
 *   replayed (SPEC §12 kill switch);
 * - {@link NATIVE_COMPACTION_OFF_KEY}: route keys that refused `context_management` (SPEC §24.7);
 * - {@link ANTHROPIC_COMPACTION_OFF_KEY}: route keys that refused Anthropic on-demand compaction
 *   (SPEC §26.4);
 * - {@link REJECTED_EFFORTS_KEY}: `[[provider, host, model, [levels]], …]`, reasoning effort levels
 *   the route refused (a 4xx naming the value), mirrored store-wide as `effort:LEVEL` fields;
 * - {@link REJECTED_REQUEST_FIELDS_KEY}: `[[provider, host, model, [fields]], …]`, request
 *   parameters the route refused (`block_binding`, SPEC §26.4), mirrored store-wide as
 *   `request:FIELD` fields;
 * - {@link THINKING_BINDINGS_KEY}: `[[provider, host, model, [what]], …]`, what the route binds
 *   signed thinking to beyond Anthropic's documented list (`system`, SPEC §26.4), mirrored
 *   store-wide as `binding:WHAT` fields.
 */

/** The session model_config key holding learned verdicts (SPEC §13.3). */
export const REJECTED_CARRIERS_KEY = 'reasoning_rejected_carriers';

/** The session model_config key holding refused reasoning effort levels, shaped like {@link REJECTED_CARRIERS_KEY}. */
export const REJECTED_EFFORTS_KEY = 'reasoning_rejected_efforts';

/** Store-wide verdict fields naming a refused effort level: `effort:LEVEL` (carrier fields have no prefix). */
export const EFFORT_VERDICT_PREFIX = 'effort:';

/** The session model_config key holding refused request parameters, shaped like {@link REJECTED_CARRIERS_KEY}. */
export const REJECTED_REQUEST_FIELDS_KEY = 'rejected_request_fields';

/** Store-wide verdict fields naming a refused request parameter: `request:FIELD`. */
export const REQUEST_FIELD_VERDICT_PREFIX = 'request:';

/** The request parameter that declares the thinking-binding behaviour (SPEC §26.4). */
export const BLOCK_BINDING_FIELD = 'block_binding';

/** The session model_config key holding what a route binds signed thinking to, shaped like {@link REJECTED_CARRIERS_KEY}. */
export const THINKING_BINDINGS_KEY = 'anthropic_thinking_bindings';

/** Store-wide verdict fields naming a learned thinking binding: `binding:system`. */
export const BINDING_VERDICT_PREFIX = 'binding:';

/** The binding a route teaches by refusing a block only its `system` prompt separates (SPEC §26.4). */
export const SYSTEM_BINDING = 'system';

/** model_config key listing route keys whose encrypted Responses reasoning is no longer replayed (SPEC §12). */
export const ENCRYPTED_REPLAY_OFF_KEY = 'responses_encrypted_replay_off';

/** model_config key listing route keys whose native compaction is off after a 4xx (SPEC §24.7). */
export const NATIVE_COMPACTION_OFF_KEY = 'responses_native_compaction_off';

/** model_config key listing route keys whose Anthropic on-demand compaction is off after a 4xx (SPEC §26.4). */
export const ANTHROPIC_COMPACTION_OFF_KEY = 'anthropic_compaction_off';

/** model_config key holding the stand-in a required-carrier rejection taught, per route (SPEC §26.2). */
export const STAND_IN_KEY = 'reasoning_stand_in';

/** Store-wide verdict fields naming a learned stand-in: `stand-in:placeholder`, `stand-in:text`. */
export const STAND_IN_VERDICT_PREFIX = 'stand-in:';

/**
 * What a session learned about a route, read from its `model_config` (verdicts, rejected
 * signature fingerprints, the Responses kill switch) and the store-wide verdict table.
 */
export async function loadRouteLearned(
  store: SessionStore,
  modelConfig: JsonObject,
  profile: RouteProfile,
): Promise<RouteLearned> {
  const verdict = await store.getVerdict(profile.routeKey);
  return learnedFrom(modelConfig, rejectedCarriersFrom(modelConfig, profile, verdict), profile, verdict);
}

/** {@link loadRouteLearned} for verdicts already loaded (`stored`: the route's store-wide verdict). */
export function learnedFrom(
  modelConfig: JsonObject,
  rejectedCarriers: readonly Carrier[],
  profile: Pick<RouteProfile, 'routeKey' | 'key'>,
  stored: VerdictRecord | null = null,
): RouteLearned {
  const learned: RouteLearned = {
    rejectedCarriers,
    rejectedThinkingFingerprints: readRejectedThinking(modelConfig),
    replayEncryptedReasoning: !encryptedReplayOffRoutes(modelConfig).includes(profile.routeKey),
    bindingControlsRefused: rejectedRequestFieldsFrom(modelConfig, profile, stored).includes(BLOCK_BINDING_FIELD),
    compactionOff: anthropicCompactionOffRoutes(modelConfig).includes(profile.routeKey),
  };
  if (thinkingBindingsFrom(modelConfig, profile, stored).includes(SYSTEM_BINDING)) learned.systemBound = true;
  const standIn = standInFrom(modelConfig, profile, stored);
  if (standIn !== undefined) learned.standIn = standIn;
  return learned;
}

/**
 * The stand-in learned for the route, session-level or store-wide (SPEC §26.2): `text` once a
 * placeholder was refused, else `placeholder` once a missing signature was named.
 */
export function standInFrom(
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key'>,
  stored: VerdictRecord | null,
): StandInKind | undefined {
  const values = new Set<string>(routeListAt(modelConfig, STAND_IN_KEY, profile.key));
  for (const field of stored?.fields ?? []) {
    if (field.startsWith(STAND_IN_VERDICT_PREFIX)) values.add(field.slice(STAND_IN_VERDICT_PREFIX.length));
  }
  if (values.has('text')) return 'text';
  return values.has('placeholder') ? 'placeholder' : undefined;
}

/** Persists a learned stand-in for the route: the session's model_config and the store-wide verdict table. */
export function persistStandIn(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
  standIn: StandInKind,
  errorText: string,
): Promise<JsonObject> {
  const learned = { configKey: STAND_IN_KEY, prefix: STAND_IN_VERDICT_PREFIX, values: [standIn], errorText };
  return persistRouteList(store, sessionId, modelConfig, learned, profile);
}

/** Request parameters the route refused, session-level and store-wide (store fields `request:FIELD`). */
export function rejectedRequestFieldsFrom(
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key'>,
  stored: VerdictRecord | null,
): string[] {
  return routeValuesFrom(modelConfig, REJECTED_REQUEST_FIELDS_KEY, REQUEST_FIELD_VERDICT_PREFIX, profile, stored);
}

/** Persists refused request parameters for the route: the session's model_config and the store-wide verdict table. */
export function persistRejectedRequestFields(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
  fields: readonly string[],
  errorText: string,
): Promise<JsonObject> {
  const learned = {
    configKey: REJECTED_REQUEST_FIELDS_KEY,
    prefix: REQUEST_FIELD_VERDICT_PREFIX,
    values: fields,
    errorText,
  };
  return persistRouteList(store, sessionId, modelConfig, learned, profile);
}

/** What the route binds signed thinking to, session-level and store-wide (store fields `binding:WHAT`). */
export function thinkingBindingsFrom(
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key'>,
  stored: VerdictRecord | null,
): string[] {
  return routeValuesFrom(modelConfig, THINKING_BINDINGS_KEY, BINDING_VERDICT_PREFIX, profile, stored);
}

/**
 * The values learned for the route under `configKey` in the session, with the store-wide verdict's
 * fields that start with `prefix` (the prefix taken off), sorted.
 */
function routeValuesFrom(
  modelConfig: JsonObject,
  configKey: string,
  prefix: string,
  profile: Pick<RouteProfile, 'key'>,
  stored: VerdictRecord | null,
): string[] {
  const values = new Set<string>(routeListAt(modelConfig, configKey, profile.key));
  for (const field of stored?.fields ?? []) if (field.startsWith(prefix)) values.add(field.slice(prefix.length));
  return [...values].sort();
}

/** Persists a learned thinking binding for the route: the session's model_config and the store-wide verdict table. */
export function persistThinkingBinding(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
  binding: string,
  errorText: string,
): Promise<JsonObject> {
  const learned = { configKey: THINKING_BINDINGS_KEY, prefix: BINDING_VERDICT_PREFIX, values: [binding], errorText };
  return persistRouteList(store, sessionId, modelConfig, learned, profile);
}

/**
 * The values listed for one route key under a model_config key holding
 * `[[provider, host, model, [values]], …]`; malformed entries are skipped (SPEC §13.3 loading).
 */
function routeListAt(modelConfig: JsonObject, configKey: string, key: RouteKey): string[] {
  const entries = modelConfig[configKey];
  if (!Array.isArray(entries)) return [];
  const values = new Set<string>();
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 4 || !Array.isArray(entry[3])) continue;
    const [provider, host, model, list] = entry as [JsonValue, JsonValue, JsonValue, JsonValue[]];
    if (provider !== key.provider || host !== key.host || model !== key.model) continue;
    for (const value of list) if (typeof value === 'string') values.add(value);
  }
  return [...values];
}

/**
 * Merges `values` into the route's entry under `configKey` (a merging patch of the whole list)
 * and the store-wide verdict table (store fields `prefix + value`); returns the new model_config.
 */
async function persistRouteList(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  learned: { configKey: string; prefix: string; values: readonly string[]; errorText: string },
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
): Promise<JsonObject> {
  const { key } = profile;
  const existing = Array.isArray(modelConfig[learned.configKey]) ? (modelConfig[learned.configKey] as JsonValue[]) : [];
  const merged = [...new Set([...routeListAt(modelConfig, learned.configKey, key), ...learned.values])].sort();
  const others = existing.filter(
    (entry) => !(Array.isArray(entry) && entry[0] === key.provider && entry[1] === key.host && entry[2] === key.model),
  );
  const list: JsonValue[] = [...others, [key.provider, key.host, key.model, merged]];
  const config = await store.patchModelConfig(sessionId, { [learned.configKey]: list });
  await store.recordVerdict({
    routeKey: profile.routeKey,
    provider: key.provider,
    host: key.host,
    model: key.model,
    fields: merged.map((value) => learned.prefix + value),
    errorText: learned.errorText.slice(0, 2000),
  });
  return config;
}

/**
 * Reads the session-level verdicts for one route key from model_config: a list of
 * `[provider, host, model, [fields]]`; malformed entries are skipped (SPEC §13.3 loading).
 */
export function sessionRejectedCarriers(modelConfig: JsonObject, key: RouteKey): Carrier[] {
  return CARRIERS.filter((carrier) => routeListAt(modelConfig, REJECTED_CARRIERS_KEY, key).includes(carrier));
}

/** Union of session-level and store-wide verdicts for the route (SPEC §13.3, §23.1). */
export async function loadRejectedCarriers(
  store: SessionStore,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
): Promise<Carrier[]> {
  return rejectedCarriersFrom(modelConfig, profile, await store.getVerdict(profile.routeKey));
}

/** {@link loadRejectedCarriers} with the route's store-wide verdict already read. */
export function rejectedCarriersFrom(
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key'>,
  stored: VerdictRecord | null,
): Carrier[] {
  const fields = new Set<string>(sessionRejectedCarriers(modelConfig, profile.key));
  for (const field of stored?.fields ?? []) fields.add(field);
  return CARRIERS.filter((carrier) => fields.has(carrier));
}

/**
 * Persists a learned verdict: the session's model_config (merging patch of the whole list) and
 * the store-wide verdict table.
 */
export function persistVerdict(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
  fields: readonly Carrier[],
  errorText: string,
): Promise<JsonObject> {
  const learned = { configKey: REJECTED_CARRIERS_KEY, prefix: '', values: fields, errorText };
  return persistRouteList(store, sessionId, modelConfig, learned, profile);
}

/**
 * Effort levels the route refused, session-level and store-wide (store fields `effort:LEVEL`),
 * in level order: the runtime sends the nearest level not among them.
 */
export async function loadRejectedEfforts(
  store: SessionStore,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
): Promise<ReasoningEffort[]> {
  return rejectedEffortsFrom(modelConfig, profile, await store.getVerdict(profile.routeKey));
}

/** {@link loadRejectedEfforts} with the route's store-wide verdict already read. */
export function rejectedEffortsFrom(
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key'>,
  stored: VerdictRecord | null,
): ReasoningEffort[] {
  const levels = new Set<string>(routeListAt(modelConfig, REJECTED_EFFORTS_KEY, profile.key));
  for (const field of stored?.fields ?? []) {
    if (field.startsWith(EFFORT_VERDICT_PREFIX)) levels.add(field.slice(EFFORT_VERDICT_PREFIX.length));
  }
  return REASONING_EFFORTS.filter((level) => levels.has(level));
}

/** Persists refused effort levels for the route: the session's model_config and the store-wide verdict table. */
export function persistRejectedEfforts(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  profile: Pick<RouteProfile, 'key' | 'routeKey'>,
  levels: readonly ReasoningEffort[],
  errorText: string,
): Promise<JsonObject> {
  const learned = { configKey: REJECTED_EFFORTS_KEY, prefix: EFFORT_VERDICT_PREFIX, values: levels, errorText };
  return persistRouteList(store, sessionId, modelConfig, learned, profile);
}

/** Fingerprints of rejected signed thinking already remembered in the session (SPEC §9.4). */
export function rememberedThinkingFingerprints(modelConfig: JsonObject): ReadonlySet<string> {
  return new Set(readRejectedThinking(modelConfig));
}

/** Adds rejected-thinking fingerprints to the session (SPEC §9.4, §24.8); returns the new model_config. */
export async function persistRejectedThinking(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  fingerprints: readonly string[],
): Promise<JsonObject> {
  const next = withRejectedThinking(modelConfig, [...fingerprints]);
  return store.patchModelConfig(sessionId, {
    [ANTHROPIC_REJECTED_THINKING_KEY]: next[ANTHROPIC_REJECTED_THINKING_KEY] as JsonValue,
  });
}

/** The route keys listed under a kill-switch key of model_config (absent or malformed: none). */
function routeKeysAt(modelConfig: JsonObject, key: string): string[] {
  const value = modelConfig[key];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** Adds `routeKey` to a kill-switch list of the session (sorted, each key once). */
function persistRouteKey(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  key: string,
  routeKey: string,
): Promise<JsonObject> {
  const listed = routeKeysAt(modelConfig, key);
  return store.patchModelConfig(sessionId, { [key]: [...new Set([...listed, routeKey])].sort() });
}

/** Route keys whose encrypted reasoning replay is off in this session (SPEC §12). */
export function encryptedReplayOffRoutes(modelConfig: JsonObject): string[] {
  return routeKeysAt(modelConfig, ENCRYPTED_REPLAY_OFF_KEY);
}

/** Turns encrypted reasoning replay off for one route key in the session (SPEC §12 kill switch). */
export function persistEncryptedReplayOff(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  routeKey: string,
): Promise<JsonObject> {
  return persistRouteKey(store, sessionId, modelConfig, ENCRYPTED_REPLAY_OFF_KEY, routeKey);
}

/** Route keys whose native compaction is off in this session (SPEC §24.7). */
export function nativeCompactionOffRoutes(modelConfig: JsonObject): string[] {
  return routeKeysAt(modelConfig, NATIVE_COMPACTION_OFF_KEY);
}

/** Turns native compaction off for one route key in the session (SPEC §24.7, a verdict like §13's). */
export function persistNativeCompactionOff(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  routeKey: string,
): Promise<JsonObject> {
  return persistRouteKey(store, sessionId, modelConfig, NATIVE_COMPACTION_OFF_KEY, routeKey);
}

/** Route keys whose Anthropic on-demand compaction is off in this session (SPEC §26.4). */
export function anthropicCompactionOffRoutes(modelConfig: JsonObject): string[] {
  return routeKeysAt(modelConfig, ANTHROPIC_COMPACTION_OFF_KEY);
}

/** Turns Anthropic on-demand compaction off for one route key in the session (SPEC §26.4, like §24.7). */
export function persistAnthropicCompactionOff(
  store: SessionStore,
  sessionId: string,
  modelConfig: JsonObject,
  routeKey: string,
): Promise<JsonObject> {
  return persistRouteKey(store, sessionId, modelConfig, ANTHROPIC_COMPACTION_OFF_KEY, routeKey);
}
