import { UsageError } from '../core/errors.js';
import type { Route } from '../core/route.js';
import { isLocalEndpoint } from '../replay/replay-host.js';
import { resolveRoute, type RouteFlags } from '../runtime/runtime-route.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';
import { parseConnectTo } from './cli-connect-to.js';
import { requireAwsCredentials, usesAwsCredentials } from './cli-aws-credentials.js';
import type { InProcessEmulator } from './cli-emulator-start.js';

/** A ready-to-use route for a command, with the in-process emulator when one was started. */
export interface OpenedRoute {
  route: Route;
  apiKey: string | undefined;
  emulator: InProcessEmulator | null;
  /** What the session record stores (emulators: `emulator:PERSONA`, no URL). */
  sessionRoute: { provider: string; baseUrl: string | null } | undefined;
  /**
   * Origins every request of this route is sent to instead (`HERMES_CONNECT_TO`, or a real
   * origin an in-process emulator answers for); pass it to the runtime as the turn's
   * `connectTo`. Undefined when nothing is mapped.
   */
  connectTo: ReadonlyMap<string, string> | undefined;
  close(): Promise<void>;
}

/**
 * Resolves flags + session + config into a route; starts the in-process emulator for
 * `emulator:PERSONA` (and the offline default) and says so on stderr; refuses a remote route
 * without an API key with a message naming the environment variable.
 */
export async function openRoute(
  flags: RouteFlags,
  context: CliContext,
  session: SessionRecord | null,
  notes: NodeJS.WritableStream = process.stderr,
): Promise<OpenedRoute> {
  // Emulation aid: HERMES_CONNECT_TO maps a real origin onto a loopback emulator (cli-connect-to.ts).
  const connectTo = parseConnectTo(process.env['HERMES_CONNECT_TO']);
  const resolved = resolveRoute(flags, context.config, session, process.env);
  if (resolved.emulatorPersona) {
    const { startInProcessEmulator } = await import('./cli-emulator-start.js');
    const emulator = await startInProcessEmulator(resolved.emulatorPersona, resolved.route.model || undefined);
    notes.write(
      `offline: using the built-in emulator (persona ${emulator.persona}, ${emulator.baseUrl}); ` +
        'set a provider in config.yaml or pass --provider to use a real model\n',
    );
    for (const [from, to] of emulator.connectTo) connectTo.set(from, to);
    return {
      route: emulator.route,
      apiKey: emulator.apiKey,
      emulator,
      sessionRoute: { provider: `emulator:${emulator.persona}`, baseUrl: null },
      connectTo: mapped(connectTo),
      close: () => emulator.close(),
    };
  }
  const { route } = resolved;
  if (!resolved.apiKey && resolved.apiKeyEnv && !isLocalEndpoint(route.baseUrl)) {
    throw new UsageError(
      `no API key for ${route.provider}: set ${resolved.apiKeyEnv} or pass --api-key (the key is never stored)`,
    );
  }
  // Bedrock signs every request (an emulator on loopback too): no credentials is a usage error now,
  // not a failed turn later.
  if (usesAwsCredentials(route)) await requireAwsCredentials(route, resolved.apiKey);
  return {
    route,
    apiKey: resolved.apiKey,
    emulator: null,
    sessionRoute: undefined,
    connectTo: mapped(connectTo),
    close: async () => undefined,
  };
}

function mapped(connectTo: ReadonlyMap<string, string>): ReadonlyMap<string, string> | undefined {
  return connectTo.size === 0 ? undefined : connectTo;
}
