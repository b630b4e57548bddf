import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { bindRefusal, DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT } from '../gateway/gateway-auth.js';
import { logsDir } from '../storage/store-paths.js';
import { startMcpServers, type StartedMcp } from './cli-mcp.js';
import type { GatewayModelAlias } from '../gateway/gateway-types.js';
import type { CliContext } from './cli-context.js';
import type { OpenedRoute, openRoute as OpenRoute } from './cli-route.js';
import { registerGatewayKeyCommands } from './gateway-keys-command.js';
import { registerGatewayUserCommands } from './gateway-users-command.js';
import { CLI_VERSION } from './cli-version.js';

/** Flags of `hermes gateway`. */
interface GatewayFlags {
  host: string;
  port: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  api?: string;
  yolo?: boolean;
  token?: string;
}

/** Registers `hermes gateway`. */
export function registerGatewayCommand(program: Command): void {
  const gateway = program
    .command('gateway')
    .description(
      'Serve /v1/chat/completions, Anthropic /v1/messages, OpenAI /v1/responses and Gemini /v1beta/models/MODEL:generateContent with reasoning kept across turns and models, plus a web inspector at /.',
    )
    .option('--host <address>', 'address to bind (non-loopback needs --token)', DEFAULT_GATEWAY_HOST)
    .option('--port <n>', 'port to listen on (0 picks a free one)', String(DEFAULT_GATEWAY_PORT))
    .option('--provider <id>', 'provider id (e.g. openrouter, deepseek, anthropic) or emulator:PERSONA')
    .option('--model <id>', 'model id')
    .option('--base-url <url>', 'provider base URL')
    .option('--api-key <key>', "API key (default: the provider's environment variable; never stored or logged)")
    .option(
      '--api <api>',
      'wire API override: chat_completions, anthropic_messages, bedrock_converse, gemini, codex_responses',
    )
    .option(
      '--yolo',
      'approve every tool call (writing files, shell, MCP tools) and start unapproved .mcp.json servers; without it such tools are refused',
    )
    .option(
      '--token <token>',
      'require the token, as "Authorization: Bearer <token>" or in x-api-key (default: $HERMES_GATEWAY_TOKEN)',
    )
    .addHelpText(
      'after',
      `
Chat completions: send X-Hermes-Session-Id (or "session_id" in the body) to continue a stored
session; without it a new one is created and its id returned in the X-Hermes-Session-Id header.

Front doors for clients that run their own tools and hold the history (Claude Code, Codex,
Gemini CLI, the Anthropic, OpenAI and Google SDKs): POST /v1/messages, POST /v1/responses and
POST /v1beta/models/MODEL:generateContent (:streamGenerateContent, :countTokens). Reasoning
comes back to them in a sealed handle (the thinking signature, the reasoning item's
encrypted_content, a part's thoughtSignature) that the gateway opens on the next turn. The
client's model picks a route from config.yaml gateway.models (or PROVIDER:MODEL); other names
use this gateway's route. A session header (x-claude-code-session-id, session-id, x-session-id,
X-Hermes-Session-Id) mirrors the turns into a session; Gemini clients send none, and their
conversation is found by its history. Chat requests with tools, or naming OpenCode's
x-session-id, pass through. The token is accepted as "Authorization: Bearer T", "x-api-key: T",
"x-goog-api-key: T" or ?key=T. See docs/gateway.md.

With no provider configured the gateway runs offline against the built-in emulator.

Examples:
  hermes gateway                                       http://127.0.0.1:8642, offline emulator
  hermes gateway --provider deepseek --model deepseek-v4-flash
  ANTHROPIC_BASE_URL=http://127.0.0.1:8642 claude      Claude Code through the gateway
  HERMES_GATEWAY_TOKEN=s3cret hermes gateway --host 0.0.0.0
  hermes gateway rotate-key                            seal new handles with a new key
  hermes gateway users add alice                       a per-user key (printed once)

For operators (docs/operations.md): GET /healthz and GET /readyz (no token), GET /metrics
(Prometheus, behind the token), OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT (or
another OTEL_* exporter setting) is set.`,
    )
    .action(async (flags: GatewayFlags) => {
      await runGateway(flags);
    });
  registerGatewayKeyCommands(gateway);
  registerGatewayUserCommands(gateway);
}

async function runGateway(flags: GatewayFlags): Promise<void> {
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError('--port must be a whole number 0-65535');
  const token = flags.token ?? (process.env['HERMES_GATEWAY_TOKEN'] || undefined);
  // Checked before anything opens so a refused bind starts no emulator and writes no state.
  const refusal = bindRefusal(flags.host, token);
  if (refusal) throw new UsageError(refusal);
  // Loaded here, not at registration, so other commands and `--help` load no gateway, store,
  // runtime or transport code.
  const [
    { openCliContext },
    { openRoute },
    { openLogger },
    { startGateway },
    { defaultSessionSystemPrompt },
    { startTracing },
  ] = await Promise.all([
    import('./cli-context.js'),
    import('./cli-route.js'),
    import('../logging/logger.js'),
    import('../gateway/gateway-serve.js'),
    import('../runtime/system-prompt-session.js'),
    import('../telemetry/telemetry-tracing.js'),
  ]);
  const context = openCliContext();
  const opened = await openRoute(flags, context, null);
  let mcp: StartedMcp | null = null;
  let tracing: Awaited<ReturnType<typeof startTracing>> = null;
  const aliases: { alias: GatewayModelAlias; opened: OpenedRoute }[] = [];
  try {
    for (const setting of context.config.gatewayModels)
      aliases.push(await openAlias(setting, opened, context, openRoute));
    const logger = openLogger(logsDir(context.home), 'gateway');
    // OTEL_* variables only; with none set nothing of OpenTelemetry is loaded (docs/operations.md).
    tracing = await startTracing(process.env, {
      name: 'hermes-gateway',
      version: CLI_VERSION,
      warn: (line) => {
        process.stderr.write(`hermes gateway: ${line}\n`);
        logger.warn(line);
      },
    });
    // The server-side tool loop offers the MCP servers' tools too; they start before the port opens.
    mcp = await startMcpServers(context.config, {
      home: context.home,
      workspace: process.cwd(),
      yolo: Boolean(flags.yolo),
      notes: (line) => process.stderr.write(`hermes gateway: ${line}\n`),
      logger,
    });
    // Reaching the store before binding: a wrong storage URL fails here, in one line. A fleet
    // shares one PostgreSQL database; the log names it (never its password).
    const store = await context.store().describe();
    const gateway = await startGateway({
      host: flags.host,
      port,
      token,
      store: context.store(),
      route: opened,
      workspace: process.cwd(),
      // Built per new session, so its date and git state are those of the session's start.
      systemPrompt: () => defaultSessionSystemPrompt(context.config, process.cwd()),
      yolo: Boolean(flags.yolo),
      logger,
      tracing,
      models: aliases.map((entry) => entry.alias),
      turn: {
        reasoning: {
          enabled: context.config.reasoning.enabled,
          effort: context.config.reasoning.effort,
          budgetTokens: context.config.reasoning.budgetTokens,
        },
        reasoningOverrides: context.config.reasoningOverrides,
        echoOptIn: context.config.reasoningEcho,
        routeOverrides: context.config.routes,
        maxIterations: context.config.maxIterations,
        compaction: context.config.compaction,
        timeouts: context.config.timeouts,
        ...(mcp.tools ? { tools: mcp.tools } : {}),
      },
    });
    const { route } = opened;
    logger.info(
      { url: gateway.url, provider: route.provider, model: route.model, api: route.api, store },
      'gateway listening',
    );
    process.stderr.write(
      `hermes gateway listening on ${gateway.url} (${route.provider} ${route.model}${modelsNote(aliases)}${token ? ', token required' : ''}${flags.yolo ? ', --yolo' : ''}${tracing ? ', tracing' : ''}); inspector at ${gateway.url}/\n`,
    );
    await waitForSignal();
    process.stderr.write('hermes gateway: stopping\n');
    await gateway.close();
  } finally {
    await tracing?.shutdown();
    await mcp?.close();
    for (const entry of aliases) await entry.opened.close();
    await opened.close();
    await context.close();
  }
}

/**
 * Opens the route of one `gateway.models` entry. Its key is the provider's environment variable;
 * an entry on the gateway's own provider without one uses the gateway's key. A missing key is a
 * usage error naming the entry, before the gateway binds.
 */
async function openAlias(
  setting: CliContext['config']['gatewayModels'][number],
  gatewayRoute: OpenedRoute,
  context: CliContext,
  openRoute: typeof OpenRoute,
): Promise<{ alias: GatewayModelAlias; opened: OpenedRoute }> {
  const sameProvider = setting.provider === gatewayRoute.route.provider;
  const flags = {
    provider: setting.provider,
    model: setting.model,
    baseUrl: setting.baseUrl,
    api: setting.api,
    apiKey: sameProvider ? gatewayRoute.apiKey : undefined,
  };
  try {
    const opened = await openRoute(flags, context, null);
    const route = {
      route: opened.route,
      apiKey: opened.apiKey,
      sessionRoute: opened.sessionRoute,
      connectTo: opened.connectTo,
    };
    return { alias: { name: setting.name, route }, opened };
  } catch (error) {
    if (error instanceof UsageError) {
      // --api-key names the gateway's own route; an entry's key comes from its variable only.
      const message = error.message.replace(' or pass --api-key', '');
      throw new UsageError(`config.yaml gateway.models "${setting.name}": ${message}`);
    }
    throw error;
  }
}

/** `; models claude-*, gemini` when config.yaml routes model names (gateway.models). */
function modelsNote(aliases: readonly { alias: GatewayModelAlias }[]): string {
  return aliases.length ? `; models ${aliases.map((entry) => entry.alias.name).join(', ')}` : '';
}

/** Resolves on SIGINT or SIGTERM (the gateway runs until stopped). */
function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
