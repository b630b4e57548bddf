import type { Route } from '../core/route.js';
import { getProvider } from '../providers/provider-registry.js';
import {
  NOTHING_LEARNED,
  resolveRouteProfile,
  type RouteLearned,
  type RouteOverride,
  type RouteProfile,
} from '../replay/replay-route-profile.js';
import type { TransportRequest } from './shared/transport.js';

/**
 * Route profiles with the provider defaults applied: the replay resolver is pure and knows no
 * provider registry, so this layer tells it which base URL a route without one contacts and
 * which native record type the provider declares (SPEC §5 post-step).
 */

/** User and environment settings that shape a route's profile. */
export interface RouteSettings {
  /** User route rows from `config.yaml` (SPEC §23.4). */
  overrides?: readonly RouteOverride[] | undefined;
  /** `model.reasoning_echo` opt-in (SPEC §4). */
  echoOptIn?: boolean | undefined;
  /** The value of `NOUS_INFERENCE_BASE_URL`, when set (SPEC §9.2). */
  nousInferenceBaseUrl?: string | undefined;
}

/** Default base URLs of providers that serve `/responses`, by lower-cased provider id. */
export const RESPONSES_DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  xai: 'https://api.x.ai/v1',
  copilot: 'https://api.githubcopilot.com',
  'github-copilot': 'https://api.githubcopilot.com',
  openrouter: 'https://openrouter.ai/api/v1',
  deepseek: 'https://api.deepseek.com',
  codex: 'https://chatgpt.com/backend-api/codex',
};

/**
 * The base URL a route without one contacts: the provider registry's default on
 * chat-completions (an unknown provider has none), the Responses table on `codex_responses`.
 * The native APIs classify the route as given (SPEC §9.2, §11), so they get none.
 */
function defaultBaseUrlFor(route: Route): string | undefined {
  if (route.api === 'chat_completions') return getProvider(route.provider)?.baseUrl;
  if (route.api === 'codex_responses') return RESPONSES_DEFAULT_BASE_URLS[route.provider.trim().toLowerCase()];
  return undefined;
}

/** The profile of `route` under `settings`, with the provider's defaults (see {@link resolveRouteProfile}). */
export function routeProfileFor(route: Route, settings: RouteSettings = {}): RouteProfile {
  return resolveRouteProfile(route, settings.overrides ?? [], {
    echoOptIn: settings.echoOptIn,
    nousInferenceBaseUrl: settings.nousInferenceBaseUrl,
    defaultBaseUrl: defaultBaseUrlFor(route),
    nativeReasoningDetailsType:
      route.api === 'chat_completions' ? getProvider(route.provider)?.nativeReasoningDetailsType : undefined,
  });
}

/** The request's profile, or the built-in one of its route when the caller resolved none. */
export function requestProfile(request: TransportRequest, settings: RouteSettings = {}): RouteProfile {
  return request.profile ?? routeProfileFor(request.route, settings);
}

/** What the request says was learned about its route (nothing when it says nothing). */
export function requestLearned(request: TransportRequest): RouteLearned {
  return request.learned ?? NOTHING_LEARNED;
}
