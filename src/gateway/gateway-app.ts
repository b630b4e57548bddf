import { FrontDoorBodies } from './gateway-front-door-body.js';
import { Hono, type Context } from 'hono';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../core/json.js';
import { browserRequestRefusal } from './gateway-auth.js';
import { gatewayAccess } from './gateway-access.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { metricsResponse, observeRequest, registerProbes } from './gateway-operations.js';
import { combinedObserver } from '../runtime/runtime-observer.js';
import { ownedSessionId } from '../storage/store-users.js';
import { chatCompletionsResponse, errorResponse, SESSION_HEADER } from './gateway-chat.js';
import { readJsonBody } from './gateway-bounded-json.js';
import { echoed, GatewayHttpError } from './gateway-errors.js';
import { INSPECTOR_CSP, INSPECTOR_HTML } from './gateway-inspector-page.js';
import { SessionTurnLock } from './gateway-session-lock.js';
import { branchSessionBody, listRequestsBody, listSessionsBody, showSessionBody } from './gateway-sessions.js';
import type { GatewayOptions, GatewayTurnContext } from './gateway-types.js';
import { WarmHistories } from '../runtime/runtime-warm-history.js';
import { nodeRequestSource, webRequestSource, type ChatRequestSource } from './gateway-request-source.js';
import { anthropicErrorResponse } from './gateway-front-door-errors.js';
import type { FrontDoorContext } from './gateway-front-door.js';
import { FrontDoorSessionCopies } from './gateway-front-door-copies.js';
import { HandleKeyring } from './gateway-handle-keys.js';
import { countTokensResponse, messagesResponse } from './gateway-messages-door.js';
import { GatewayModelRoutes } from './gateway-model-routes.js';
import { requestRouteDescriber } from '../runtime/runtime-request-routes.js';
import { responsesResponse } from './gateway-responses-door.js';
import { chatToolsResponse, hasClientTools } from './gateway-chat-tools.js';
import { StatelessTurnMemory } from '../runtime/runtime-stateless-memory.js';
import {
  geminiActionResponse,
  geminiErrorResponse,
  geminiModelResponse,
  geminiModelsResponse,
  geminiNotFound,
  withGoogleKey,
} from './gateway-gemini-door.js';

/**
 * The gateway as a value (STYLE rule 7 (docs/architecture.md)): a hono app mapping web `Request` to `Response`,
 * testable with `app.request()`; only `gateway-serve.ts` binds a port.
 *
 * Routes: `GET /` (inspector page), `GET /v1/models`, `POST /v1/chat/completions`, the front
 * doors `POST /v1/messages` (+ `/v1/messages/count_tokens`), `POST /v1/responses` and Gemini's
 * `POST /v1beta/models/{model}:generateContent` (+ `:streamGenerateContent`, `:countTokens`,
 * `GET /v1beta/models`),
 * `GET /v1/sessions`, `GET /v1/sessions/{id}`, `POST /v1/sessions/{id}/branch`,
 * `GET /v1/sessions/{id}/requests`, and for operators `GET /healthz`, `GET /readyz` and
 * `GET /metrics` (gateway-operations.ts). With a token every route but the static page and the
 * probes requires it, as `Authorization: Bearer <token>` or `x-api-key: <token>` (the Anthropic
 * SDK's header), or a user key (gateway-access.ts).
 */
export function createGatewayApp(options: GatewayOptions): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>();
  const lock = new SessionTurnLock(options.maxWaitingTurns ?? 8);
  const warmHistories = options.warmSessions === false ? undefined : new WarmHistories(options.warmSessions);
  const metrics = options.metrics === false ? undefined : gatewayMetrics(options, warmHistories);
  const tracing = options.tracing ?? undefined;
  const observer = combinedObserver([options.turn?.observer, metrics, tracing?.observer]);
  const context: GatewayTurnContext = {
    store: options.store,
    route: options.route,
    workspace: options.workspace,
    yolo: options.yolo,
    logger: options.logger,
    turn: { reasoning: { enabled: true }, ...options.turn, ...(observer ? { observer } : {}) },
    systemPrompt: options.systemPrompt,
    warmHistories,
  };
  const { store, logger, token } = options;
  const onSession = (c: Context<GatewayEnv>) => (sessionId: string) => c.set('answeredSession', sessionId);
  const doors: FrontDoorContext = {
    gateway: context,
    routes: new GatewayModelRoutes(options.route, options.models ?? [], logger),
    keyring: new HandleKeyring(store),
    lock,
    notices: new Set(),
    statelessMemory: new StatelessTurnMemory(),
    keyRequired: Boolean(token),
    copies: new FrontDoorSessionCopies(options.warmSessions === false ? { maxSessions: 0 } : options.warmSessions),
    bodies: new FrontDoorBodies(options.warmSessions === false ? 0 : undefined),
    onHandles: metrics && ((decisions) => metrics.handles(decisions)),
  };

  // Probes first: no token, no log line (docs/operations.md).
  registerProbes(app, store);

  app.use(async (c, next) => {
    const started = performance.now();
    const source = requestSource(c);
    c.set('source', source);
    await observeRequest(
      c,
      { metrics, tracing },
      (name) => source.header(name),
      next,
      () => ({
        status: c.res.status,
        session: c.get('answeredSession') ?? source.header(SESSION_HEADER) ?? undefined,
      }),
    );
    // One line per request: never the Authorization header, a body or a key.
    logger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        session: c.get('answeredSession') ?? source.header(SESSION_HEADER) ?? undefined,
        ms: Math.round(performance.now() - started),
      },
      `${c.req.method} ${c.req.path} ${c.res.status}`,
    );
  });

  app.use(async (c, next) => {
    const refusal = browserRequestRefusal({
      method: c.req.method,
      url: c.req.url,
      origin: c.get('source').header('origin') ?? undefined,
      tokenRequired: Boolean(token),
    });
    if (refusal) return errorResponse(new GatewayHttpError(403, refusal, 'permission_error', 'forbidden_origin'));
    return next();
  });

  // The Gemini door takes Google's key header or `?key=` as the key it presents (gateway-gemini-door.ts);
  // the access check below reads it like any other.
  app.use('/v1beta/*', async (c, next) => {
    c.set('source', withGoogleKey(c.get('source'), c.req.query('key')));
    return next();
  });

  // Every route but the static page goes through one access check: the token, user keys, their limits.
  const access = gatewayAccess({ token, store });
  app.use(async (c, next) => {
    // The page itself is static and holds no data: it must load so it can ask for the token.
    if (c.req.method === 'GET' && c.req.path === '/') return next();
    const refused = await access(c.get('source'), c.req.method, c.req.path);
    if (!refused) return next();
    return refusalResponse(c.req.path, refused.error, refused.headers);
  });

  app.get('/metrics', () => metricsResponse(metrics));

  app.get('/', (c) =>
    c.html(INSPECTOR_HTML, 200, { 'Content-Security-Policy': INSPECTOR_CSP, 'Cache-Control': 'no-store' }),
  );

  app.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: doors.routes
        .names()
        .map((id) => ({ id, object: 'model', created: 0, owned_by: options.route.route.provider })),
    }),
  );

  app.post('/v1/chat/completions', (c) =>
    chatCompletionsResponse(c.get('source'), {
      context,
      lock,
      onAnswer: (sessionId) => c.set('answeredSession', sessionId),
      clientTools: (body) =>
        hasClientTools(body, (name) => c.get('source').header(name))
          ? chatToolsResponse(body as JsonObject, c.get('source'), doors, onSession(c))
          : null,
    }),
  );

  app.post('/v1/messages', (c) => messagesResponse(c.get('source'), doors, onSession(c)));
  app.post('/v1/messages/count_tokens', (c) => countTokensResponse(c.get('source'), doors));
  app.post('/v1/responses', (c) => responsesResponse(c.get('source'), doors, onSession(c)));
  app.get('/v1beta/models', () => geminiModelsResponse(doors));
  app.get('/v1beta/models/:name{.+}', (c) => geminiModelResponse(c.req.param('name')));
  app.post('/v1beta/models/:target{.+}', (c) =>
    geminiActionResponse(
      c.get('source'),
      doors,
      { target: c.req.param('target'), alt: c.req.query('alt'), options: { keyRequired: Boolean(token) } },
      onSession(c),
    ),
  );
  app.all('/v1beta/*', (c) => geminiNotFound(c.req.method, c.req.path));

  // A user key sees its own sessions only: ids are read in its namespace (store-users.ts).
  const sessionParam = (c: Context<GatewayEnv>) => ownedSessionId(c.get('source').owner, c.req.param('id') ?? '');
  app.get('/v1/sessions', async (c) =>
    c.json(await listSessionsBody(store, c.req.query('limit'), c.get('source').owner)),
  );
  app.get('/v1/sessions/:id', async (c) => c.json(await showSessionBody(store, sessionParam(c))));
  const describeRequestRoute = requestRouteDescriber({
    routes: doors.routes.configured(),
    overrides: context.turn.routeOverrides,
    echoOptIn: context.turn.echoOptIn,
  });
  app.get('/v1/sessions/:id/requests', async (c) =>
    c.json(await listRequestsBody(store, sessionParam(c), describeRequestRoute)),
  );
  app.post('/v1/sessions/:id/branch', async (c) => {
    const body = await readJsonBody(c.get('source'), { empty: {} });
    return c.json(await branchSessionBody(store, lock, sessionParam(c), body), 201);
  });

  app.notFound((c) => {
    const missing = new GatewayHttpError(
      404,
      `no route ${c.req.method} ${echoed(c.req.path)}`,
      'not_found_error',
      'unknown_route',
    );
    return isMessagesPath(c.req.path) ? anthropicErrorResponse(missing) : errorResponse(missing);
  });
  app.onError((error) => {
    if (error instanceof GatewayHttpError) return errorResponse(error);
    logger.error({ err: error }, 'gateway handler failed');
    return errorResponse(new GatewayHttpError(500, `unexpected gateway error: ${error.message}`, 'server_error'));
  });
  return app;
}

/** The gateway's metrics, labelled with the models of its configured routes. */
function gatewayMetrics(options: GatewayOptions, warm: WarmHistories | undefined): GatewayMetrics {
  const configuredModels = new Set([
    options.route.route.model,
    ...(options.models ?? []).map((alias) => alias.route.route.model),
  ]);
  return new GatewayMetrics({ configuredModels, warmSessions: warm && (() => warm.size.sessions) });
}

/**
 * The request as the chat route reads it: straight from Node's request and response under
 * `@hono/node-server` (its `c.env`), else from the web `Request` (`app.request()`).
 */
function requestSource(c: Context<GatewayEnv>): ChatRequestSource {
  const node = c.env as Partial<NodeBindings> | undefined;
  if (node?.incoming instanceof IncomingMessage && node.outgoing instanceof ServerResponse) {
    return nodeRequestSource(node.incoming, node.outgoing);
  }
  return webRequestSource(c.req.raw);
}

/** A refused request's answer in its door's error envelope (Anthropic's, Google's, else OpenAI's). */
function refusalResponse(path: string, error: GatewayHttpError, headers: Record<string, string>): Response {
  if (isMessagesPath(path)) return anthropicErrorResponse(error, headers);
  return path.startsWith('/v1beta/') ? geminiErrorResponse(error, headers) : errorResponse(error, headers);
}

/** Paths answered in Anthropic's error envelope (the Anthropic SDK reads only that shape). */
function isMessagesPath(path: string): boolean {
  return path === '/v1/messages' || path.startsWith('/v1/messages/');
}

/** The app's per-request values. */
export interface GatewayEnv {
  Variables: {
    /** How this request's headers, body and client-gone signal are read. */
    source: ChatRequestSource;
    /** The session a chat answer names in `X-Hermes-Session-Id` (the request log line shows it). */
    answeredSession?: string;
  };
}

/** What `@hono/node-server` passes as `c.env` over HTTP/1. */
interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}
