import { ServerResponse } from 'node:http';
import type { Context, Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { SessionStore } from '../storage/session-store.js';
import type { ServerSpanOutcome, Tracing } from '../telemetry/telemetry-tracing.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/**
 * What an orchestrator and an operator read of a running gateway (SPEC §26.10,
 * docs/operations.md): the probes `GET /healthz` (the process answers; no store access) and
 * `GET /readyz` (the store answers a read), registered before the log line, the origin check and
 * the access check, so they need no token and stay out of `gateway.log`; `GET /metrics` (behind
 * the access check); and the per-request observation (metrics, the request's span).
 */

/** How long `/readyz` waits for the store. */
export const READINESS_TIMEOUT_MS = 2_000;

/** Registers `GET /healthz` and `GET /readyz` (HEAD too); call before any middleware. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any app env: the probes read nothing of it
export function registerProbes(app: Hono<any>, store: SessionStore): void {
  app.get('/healthz', () => probeAnswer(200, 'ok'));
  app.get('/readyz', async () => {
    const problem = await storeProblem(store);
    return problem === null ? probeAnswer(200, 'ready') : probeAnswer(503, `not ready: ${problem}`);
  });
}

/** One line of text, never cached. */
function probeAnswer(status: number, line: string): Response {
  return new Response(`${line}\n`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** Null when the store answers a read within {@link READINESS_TIMEOUT_MS}; else why not, in one line. */
async function storeProblem(store: SessionStore): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`the session store did not answer within ${READINESS_TIMEOUT_MS / 1000} s`),
      READINESS_TIMEOUT_MS,
    );
  });
  const read = store.ping().then(
    () => null,
    (error: unknown) => `the session store does not answer: ${error instanceof Error ? error.message : String(error)}`,
  );
  try {
    const problem = await Promise.race([read, late]);
    return problem === null ? null : problem.replace(/\s+/g, ' ').trim();
  } finally {
    clearTimeout(timer);
  }
}

/** `GET /metrics`: the Prometheus text exposition. */
export async function metricsResponse(metrics: GatewayMetrics | undefined): Promise<Response> {
  if (!metrics) return new Response('metrics are turned off for this gateway\n', { status: 404 });
  const { text, contentType } = await metrics.exposition();
  return new Response(text, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}

/** The route pattern a request matched (`/v1/sessions/:id`), `unmatched` when none: a bounded label. */
export function doorOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let index = routes.length - 1; index >= 0; index -= 1) {
    const route = routes[index];
    if (route && route.method !== 'ALL') return route.path;
  }
  return 'unmatched';
}

/**
 * Resolves once the Node response is written to its end or its connection closed (a streamed
 * answer goes on after the handler returned); undefined outside `@hono/node-server`.
 */
function responseWritten(c: Context): Promise<void> | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (!(outgoing instanceof ServerResponse) || outgoing.writableFinished || outgoing.destroyed) return undefined;
  return new Promise((resolve) => outgoing.once('close', () => resolve()));
}

/**
 * Runs one request's handlers under its observation: the in-flight gauge, the request counter
 * and histogram, and the SERVER span when tracing is on. Without either it is `next()` alone.
 */
export async function observeRequest(
  c: Context,
  observers: { metrics: GatewayMetrics | undefined; tracing: Tracing | null | undefined },
  header: (name: string) => string | null,
  next: () => Promise<void>,
  outcome: () => ServerSpanOutcome,
): Promise<void> {
  const { metrics, tracing } = observers;
  if (!metrics && !tracing) return next();
  const started = performance.now();
  const door = doorOf(c);
  metrics?.requestStarted();
  try {
    if (tracing) {
      await tracing.serverSpan({ method: c.req.method, door, header }, next, outcome, responseWritten(c));
    } else {
      await next();
    }
  } finally {
    const { status, session } = outcome();
    metrics?.requestEnded(door, c.req.method, status, (performance.now() - started) / 1000, session);
  }
}
