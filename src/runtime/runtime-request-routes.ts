import { WIRE_APIS, type WireApi } from '../core/origin.js';
import type { Route } from '../core/route.js';
import type { RouteOverride } from '../replay/replay-route-profile.js';
import { describeRouteSummary, summarizeRoute } from '../replay/replay-route-summary.js';
import { routeProfileFor } from '../transports/transport-route-profile.js';
import { requestTarget } from './runtime-request-target.js';

/**
 * The route header of each request record the gateway inspector shows (`GET
 * /v1/sessions/{id}/requests`, SPEC §23.3): the route, the table row that decided, whether it must echo, and where this
 * gateway sends that route's requests when not to the host the route names (an in-process
 * emulator: `emulator deepseek at http://127.0.0.1:PORT/v1`). A record of a route this gateway
 * serves is described by that route's own profile; any other (a session another process wrote)
 * by the route its key names.
 */

/** The `route` object of one request record. */
export interface RequestRouteDocument {
  /** The whole header line (`route … · table row: … · must echo: …`). */
  header: string;
  table: string;
  must_echo: string | null;
  /** Where this gateway sends the route's requests, when not to the host the route names. */
  sent_to?: string;
}

/** A route requests are sent on, with where its bytes really go (the gateway's `GatewayRoute`). */
export interface ServedRoute {
  route: Route;
  sessionRoute?: { provider: string } | undefined;
  connectTo?: ReadonlyMap<string, string> | undefined;
}

/** What the describer reads: the routes served and the settings their profiles use. */
export interface RequestRouteSettings {
  routes: readonly ServedRoute[];
  overrides?: readonly RouteOverride[] | undefined;
  echoOptIn?: boolean | undefined;
}

/** A describer of `(api, route key)`, each answer computed once. */
export function requestRouteDescriber(
  settings: RequestRouteSettings,
): (api: string, routeKey: string) => RequestRouteDocument {
  const known = new Map<string, RequestRouteDocument>();
  const profileSettings = { overrides: settings.overrides, echoOptIn: settings.echoOptIn };
  const served = settings.routes.map((servedRoute) => ({
    servedRoute,
    profile: routeProfileFor(servedRoute.route, profileSettings),
  }));
  return (api, routeKey) => {
    const cacheKey = `${api}\0${routeKey}`;
    const cached = known.get(cacheKey);
    if (cached) return cached;
    const match = served.find(({ profile }) => profile.route.api === api && profile.routeKey === routeKey);
    const profile = match?.profile ?? routeProfileFor(routeFromKey(api, routeKey), profileSettings);
    const summary = summarizeRoute(profile);
    const document: RequestRouteDocument = {
      header: describeRouteSummary(summary),
      table: summary.table,
      must_echo: summary.mustEcho,
    };
    const target = match
      ? requestTarget(match.servedRoute.route, match.servedRoute.connectTo, match.servedRoute.sessionRoute)
      : undefined;
    if (target !== undefined) document.sent_to = target;
    // Bounded: a session's records name a handful of routes.
    if (known.size < 256) known.set(cacheKey, document);
    return document;
  };
}

/** The route a key `provider|host|model` names, on its host over HTTPS. */
function routeFromKey(api: string, routeKey: string): Route {
  const [provider = '', host = '', ...model] = routeKey.split('|');
  const wireApi: WireApi = (WIRE_APIS as readonly string[]).includes(api) ? (api as WireApi) : 'chat_completions';
  const route: Route = { api: wireApi, provider, model: model.join('|') };
  if (host !== '') route.baseUrl = `https://${host}`;
  return route;
}
