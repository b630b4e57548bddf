import { UsageError } from '../core/errors.js';
import type { WireApi } from '../core/origin.js';
import { WIRE_APIS } from '../core/origin.js';
import type { Route } from '../core/route.js';
import type { HermesConfig } from '../config/config-load.js';
import { isRedactedUrl, redactUrl } from '../core/redact.js';
import { resolveProvider } from '../providers/provider-registry.js';
import type { SessionRecord } from '../storage/session-store.js';

/** Route flags a command accepts. */
export interface RouteFlags {
  provider?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  api?: string | undefined;
}

/** A resolved route plus its key and, for `emulator:PERSONA`, the persona to start in-process. */
export interface ResolvedRoute {
  route: Route;
  apiKey: string | undefined;
  /** Set when the route is an in-process emulator (`--provider emulator:PERSONA`, or the offline default). */
  emulatorPersona?: string;
  /** Environment variable the key came from, for messages (never the key itself). */
  apiKeyEnv?: string | undefined;
}

/** Prefix selecting an in-process emulator persona. */
export const EMULATOR_PREFIX = 'emulator:';

/** The persona used when nothing is configured (offline default). */
export const DEFAULT_EMULATOR_PERSONA = 'openrouter';

/**
 * Resolves the route: flags win, then the resumed session's stored route, then config.yaml.
 * With no provider anywhere, the offline default is the in-process emulator.
 */
export function resolveRoute(
  flags: RouteFlags,
  config: HermesConfig,
  session: SessionRecord | null,
  env: NodeJS.ProcessEnv,
): ResolvedRoute {
  // A typo in --api or --base-url is a usage error up front, not something silently ignored
  // (emulator routes pick their own API) or three "could not reach notaurl/chat/completions" retries.
  if (flags.api !== undefined) parseApi(flags.api);
  if (flags.baseUrl !== undefined) parseBaseUrl(flags.baseUrl, '--base-url');
  const fromSession = !flags.provider && session?.provider ? session : null;
  const provider = flags.provider ?? fromSession?.provider ?? config.provider;
  if (!provider || provider.startsWith(EMULATOR_PREFIX)) {
    const persona = provider ? provider.slice(EMULATOR_PREFIX.length) : DEFAULT_EMULATOR_PERSONA;
    return {
      route: {
        api: 'chat_completions',
        provider: EMULATOR_PREFIX + persona,
        model: flags.model ?? fromSession?.model ?? '',
      },
      apiKey: undefined,
      emulatorPersona: persona,
    };
  }
  const baseUrl =
    flags.baseUrl ??
    (fromSession ? storedSessionBaseUrl(fromSession, config.baseUrl) : undefined) ??
    (flags.provider ? undefined : config.baseUrl) ??
    undefined;
  const info = resolveProvider(provider, baseUrl);
  // config.yaml's model belongs to config.yaml's provider; another provider gets its own default.
  const configModel = provider === config.provider ? config.model : undefined;
  const model = flags.model ?? fromSession?.model ?? configModel ?? info.defaultModel;
  if (!model) throw new UsageError(`no model for provider "${provider}": pass --model or set "model" in config.yaml`);
  const api = parseApi(flags.api ?? fromSession?.api ?? config.api ?? info.api);
  const keyEnv = info.apiKeyEnv;
  const apiKey = flags.apiKey ?? (keyEnv ? env[keyEnv] : undefined);
  return {
    route: { api, provider, model, baseUrl: baseUrl ?? info.baseUrl },
    apiKey,
    apiKeyEnv: keyEnv,
  };
}

/** Validates a wire API name. */
export function parseApi(value: string): WireApi {
  if ((WIRE_APIS as readonly string[]).includes(value)) return value as WireApi;
  throw new UsageError(`unknown --api "${value}" (expected one of: ${WIRE_APIS.join(', ')})`);
}

/** Validates a base URL: absolute http(s), so a typo fails before any request is made. */
export function parseBaseUrl(value: string, source: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) return value;
  throw new UsageError(`${source} "${value}" is not an http(s) URL (e.g. https://api.example.com/v1)`);
}

/**
 * The base URL a resumed session runs on. The store keeps base URLs without their credentials
 * (`storedBaseUrl`, storage/session-store-rules.ts); such a URL is replaced by the configured
 * one it was stored from (the same URL once redacted), and without one the resume asks for it.
 */
function storedSessionBaseUrl(session: SessionRecord, configured: string | undefined): string | undefined {
  const stored = session.baseUrl ?? undefined;
  if (stored === undefined || !isRedactedUrl(stored)) return stored;
  if (configured !== undefined && redactUrl(configured) === stored) return configured;
  throw new UsageError(
    `session ${session.id} ran on a base URL with a credential in it, which is not stored (${stored}): ` +
      'pass --base-url with the full URL to resume it',
  );
}
