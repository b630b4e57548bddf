import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { parseHistory } from '../core/message-parse.js';
import type { WireApi } from '../core/origin.js';
import { WIRE_APIS } from '../core/origin.js';
import { REASONING_EFFORTS, type ReasoningEffort, type ReasoningOptions } from '../core/reasoning-options.js';
import type { Route } from '../core/route.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { resolveProvider } from '../providers/provider-registry.js';
import { chatReplayDecision } from '../replay/replay-policy.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';
import { describeRouteSummary, summarizeRoute } from '../replay/replay-route-summary.js';
import type { Carrier, RouteOverride } from '../replay/replay-types.js';
import { CARRIERS } from '../replay/replay-types.js';
import type { TransportRequest } from '../transports/shared/transport.js';
import { serializeRequestBody } from '../transports/shared/request-body.js';
import { prepareRequest } from '../transports/transport-prepare.js';
import { type BuiltRequest, buildRequest, explainTable, lookupRoute } from '../replay-api.js';
import { routeProfileFor } from '../transports/transport-route-profile.js';
import { emulatorPreviewRoute } from './cli-emulator-route.js';
import { EMULATOR_PREFIX } from '../runtime/runtime-route.js';
import { hermesHome } from '../storage/store-paths.js';
import { isUndone } from '../storage/session-undo.js';
import { archivedBy } from '../storage/session-archive.js';
import { formatFailedRequests, formatHandleDecisions, formatSessionRestores } from './replay-handle-decisions.js';
import { compactionLines } from './sessions-compaction-view.js';
import { formatProviderDrops } from './replay-provider-drops.js';

/**
 * `hermes replay preview`: a dry run of the request a route would receive for a history
 * (docs/replay.md). `--json` prints exactly the body; `--explain` prints the
 * per-message carrier decisions (SPEC §23.3); neither prints both the table and a summary line.
 */

/** Route and replay flags of a preview (everything but where the history comes from). */
export interface PreviewFlags {
  provider: string;
  model?: string | undefined;
  baseUrl?: string | undefined;
  /** Wire API; default `chat_completions`. */
  api?: string | undefined;
  /** `model.reasoning_echo` opt-in (SPEC §4). */
  reasoningEcho?: boolean | undefined;
  /** Simulated learned verdicts (SPEC §13). */
  rejected?: readonly Carrier[] | undefined;
  /** User route rows (SPEC §23.4), e.g. from config.yaml. */
  overrides?: readonly RouteOverride[] | undefined;
  /** Default: reasoning enabled, no effort. */
  reasoning?: ReasoningOptions | undefined;
  tools?: readonly ToolDefinition[] | undefined;
}

const EFFORTS: readonly ReasoningEffort[] = REASONING_EFFORTS;

/** Validates `--api`. */
export function parseWireApi(value: string | undefined): WireApi {
  const api = value ?? 'chat_completions';
  if ((WIRE_APIS as readonly string[]).includes(api)) return api as WireApi;
  throw new UsageError(`unknown --api "${api}" (expected one of: ${WIRE_APIS.join(', ')})`);
}

/** Parses `--rejected FIELD[,FIELD]`. */
export function parseRejected(value: string | undefined): Carrier[] {
  if (value === undefined || value.trim() === '') return [];
  const fields = value
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '');
  for (const field of fields) {
    if (!(CARRIERS as readonly string[]).includes(field)) {
      throw new UsageError(`unknown --rejected field "${field}" (expected: ${CARRIERS.join(', ')})`);
    }
  }
  return CARRIERS.filter((carrier) => fields.includes(carrier));
}

/** The route a preview builds for (`--model` defaults to the provider's default model, as in `hermes chat`). */
export function previewRoute(flags: PreviewFlags): Route {
  const provider = flags.provider.trim();
  if (provider === '') throw new UsageError('--provider is required');
  const info = resolveProvider(provider, flags.baseUrl);
  const model = flags.model?.trim() || info.defaultModel;
  if (!model) throw new UsageError(`no model for provider "${provider}": pass --model`);
  const route: Route = { api: parseWireApi(flags.api), provider, model };
  if (flags.baseUrl !== undefined && flags.baseUrl.trim() !== '') route.baseUrl = flags.baseUrl.trim();
  return route;
}

/**
 * The request `flags`' route would receive for `history`: {@link buildRequest} of the library
 * entry (`hermes-ts/replay`), the same encoders the transports use, with this process's
 * environment. `--session ID` adds the session's learned verdicts and signature fingerprints.
 */
export function previewRequest(history: readonly Message[], flags: PreviewFlags): BuiltRequest {
  const route = previewRoute(flags);
  return buildRequest({
    messages: history,
    route,
    rejected: flags.rejected ?? [],
    reasoningEcho: flags.reasoningEcho,
    routes: flags.overrides,
    tools: flags.tools ?? [],
    reasoning: flags.reasoning ?? { enabled: true },
    environment: process.env,
  });
}

/** The profile of the preview route under the flags' route rows and echo opt-in. */
function previewProfile(route: Route, flags: PreviewFlags): RouteProfile {
  return lookupRoute(route, { routes: flags.overrides, reasoningEcho: flags.reasoningEcho, environment: process.env });
}

/**
 * The line `--explain` starts with: the route, the table row that decides what travels and
 * whether the route must echo (replay-route-summary.ts), and for an emulator session the
 * emulator that serves it (its route names the real host: replay takes the production decisions).
 */
export function formatRouteHeader(profile: RouteProfile, sessionProvider?: string): string {
  const header = describeRouteSummary(summarizeRoute(profile));
  if (!sessionProvider?.startsWith(EMULATOR_PREFIX)) return header;
  const persona = sessionProvider.slice(EMULATOR_PREFIX.length);
  return `${header} · served by the in-process emulator ${persona} on 127.0.0.1 (hermes chat starts it)`;
}

/** The `--explain` table: one row per message (index, role, decisions with reasons). */
export function formatExplainTable(history: readonly Message[], prepared: Pick<BuiltRequest, 'decisions'>): string {
  return explainTable(history, prepared.decisions);
}

/** The one-line summary: route key, carriers the route reads, padding, carriers sent. */
export function formatSummary(flags: PreviewFlags, prepared: BuiltRequest): string {
  const route = previewRoute(flags);
  const list = (carriers: readonly Carrier[]) => (carriers.length > 0 ? carriers.join(', ') : 'none');
  const parts = [`route ${prepared.routeKey}`, `api ${route.api}`];
  if (route.api === 'chat_completions') {
    const decision = chatReplayDecision(previewProfile(route, flags), flags.rejected);
    parts.push(`carriers ${list(decision.carriers ?? [])}`, `pad ${decision.pad ? 'yes' : 'no'}`);
  }
  parts.push(`sent ${list(prepared.carriersSent)}`);
  return parts.join(' · ');
}

/**
 * `sessions export` writes a `{"hermes_session": …}` header line before the messages; a history
 * file may start with it, so exports feed `--history` directly.
 */
function withoutExportHeader(text: string): string {
  const newline = text.indexOf('\n');
  const first = (newline < 0 ? text : text.slice(0, newline)).trim();
  return first.startsWith('{"hermes_session"') ? text.slice(newline < 0 ? text.length : newline + 1) : text;
}

function readHistoryFile(file: string): Message[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`cannot read history file "${file}": ${why}`);
  }
  // An export keeps the messages `/undo` took back and those compaction archived, marked; a
  // request never sends them (docs/sessions.md).
  return parseHistory(withoutExportHeader(text)).filter(
    (message) => !isUndone(message) && archivedBy(message) === null,
  );
}

interface PreviewOptions {
  history?: string;
  session?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  api?: string;
  reasoningEcho?: boolean;
  rejected?: string;
  reasoning: boolean;
  reasoningEffort?: string;
  json?: boolean;
  explain?: boolean;
}

/** Registers `hermes replay preview`. */
export function registerReplayCommand(program: Command): void {
  const replay = program.command('replay').description('Inspect how stored reasoning is replayed to a route.');
  replay
    .command('preview')
    .description(
      'Dry run: print the exact request body a route would receive for a history, or explain each carrier decision.',
    )
    .option(
      '--history <file>',
      'canonical history: a JSON array or JSON lines of messages (sessions export output works)',
    )
    .option('--session <id>', "a stored session: its messages, route, learned verdicts and the chat's tools")
    .option('--provider <id>', 'provider id (required with --history), e.g. openrouter, deepseek, custom')
    .option('--model <id>', "model id (default: the provider's default model)")
    .option('--base-url <url>', 'base URL (default: the provider default)')
    .option('--api <api>', `wire API (${WIRE_APIS.join(', ')}; default chat_completions, or the session's)`)
    .option('--reasoning-echo', 'opt-in echo padding (model.reasoning_echo)')
    .option('--rejected <fields>', 'simulate learned verdicts: comma-separated carriers never to send')
    .option('--reasoning-effort <level>', `reasoning effort (${EFFORTS.join(', ')})`)
    .option('--no-reasoning', 'preview with reasoning disabled')
    .option('--json', 'print exactly the request body')
    .option('--explain', 'print the per-message carrier table')
    .action(async (options: PreviewOptions) => {
      if (options.session !== undefined && options.history !== undefined) {
        throw new UsageError('give either --session ID or --history FILE, not both');
      }
      if (options.session !== undefined) {
        await previewSession(options.session, options);
        return;
      }
      if (options.provider === undefined) throw new UsageError('--provider is required (e.g. --provider openrouter)');
      if (options.history === undefined) throw new UsageError('--history FILE or --session ID is required');
      const effort = options.reasoningEffort;
      if (effort !== undefined && !(EFFORTS as readonly string[]).includes(effort)) {
        throw new UsageError(`unknown --reasoning-effort "${effort}" (expected one of: ${EFFORTS.join(', ')})`);
      }
      const flags: PreviewFlags = {
        provider: options.provider,
        model: options.model,
        baseUrl: options.baseUrl,
        api: parseWireApi(options.api),
        reasoningEcho: options.reasoningEcho === true,
        rejected: parseRejected(options.rejected),
        reasoning: { enabled: options.reasoning, effort: effort as ReasoningEffort | undefined },
        ...(await configDefaults()),
      };
      if (options.reasoningEcho) flags.reasoningEcho = true;
      const history = readHistoryFile(options.history);
      const prepared = previewRequest(history, flags);
      if (options.json) {
        // Exactly the bytes the transport sends (shared/request-body.ts).
        process.stdout.write(`${serializeRequestBody(prepared)}\n`);
        return;
      }
      if (options.explain) process.stdout.write(`${formatRouteHeader(previewProfile(previewRoute(flags), flags))}\n`);
      process.stdout.write(`${formatExplainTable(history, prepared)}\n`);
      if (!options.explain) process.stdout.write(`${formatSummary(flags, prepared)}\n`);
    });
}

/** Route rows and echo opt-in from `$HERMES_HOME/config.yaml` (SPEC §23.4), applied to every preview. */
async function configDefaults(): Promise<Pick<PreviewFlags, 'overrides' | 'reasoningEcho'>> {
  const { loadConfig } = await import('../config/config-load.js');
  const config = loadConfig(hermesHome());
  return { overrides: config.routes, reasoningEcho: config.reasoningEcho };
}

/**
 * `replay preview --session ID`: the stored messages on the session's route (flags override it),
 * with its learned verdicts, rejected-signature fingerprints, config route rows and the chat's
 * tools — the same request the next `hermes chat --resume` turn builds, minus its new user message.
 */
async function previewSession(sessionId: string, options: PreviewOptions): Promise<void> {
  // Loaded here, not at registration, so other commands and `--help` load no store or tools.
  const [{ withCliContext }, { loadRouteLearned }, { toolDefinitions }, { requestCompactThreshold }] =
    await Promise.all([
      import('./cli-context.js'),
      import('../runtime/runtime-route-memory.js'),
      import('../tools/tool-registry.js'),
      import('../runtime/runtime-native-compaction.js'),
    ]);
  await withCliContext(async (context) => {
    const store = context.store();
    const session = await store.getSession(sessionId);
    if (!session) throw new UsageError(`no session "${sessionId}" (see hermes sessions list)`);
    const history = await store.listMessages(sessionId);
    const provider = options.provider ?? session.provider ?? '';
    const route = provider.startsWith(EMULATOR_PREFIX)
      ? emulatorPreviewRoute(provider.slice(EMULATOR_PREFIX.length), options.model ?? session.model ?? undefined)
      : {
          api: parseWireApi(options.api ?? session.api ?? undefined),
          provider,
          model: options.model ?? session.model ?? '',
          baseUrl: options.baseUrl ?? session.baseUrl ?? undefined,
        };
    const profile = routeProfileFor(route, {
      overrides: context.config.routes,
      echoOptIn: options.reasoningEcho === true || context.config.reasoningEcho,
      nousInferenceBaseUrl: process.env['NOUS_INFERENCE_BASE_URL'],
    });
    const learned = await loadRouteLearned(store, session.modelConfig, profile);
    const request: TransportRequest = {
      route,
      profile,
      learned: {
        ...learned,
        rejectedCarriers: [...new Set([...learned.rejectedCarriers, ...parseRejected(options.rejected)])],
      },
      history,
      tools: toolDefinitions(),
      reasoning: {
        enabled: options.reasoning && context.config.reasoning.enabled,
        effort: (options.reasoningEffort as ReasoningEffort | undefined) ?? context.config.reasoning.effort,
        budgetTokens: context.config.reasoning.budgetTokens,
      },
      stream: true,
    };
    // The native compaction threshold (SPEC §24.7) the next turn sends, or none once turned off.
    const compactThreshold = requestCompactThreshold(profile, context.config.compaction, session.modelConfig);
    if (compactThreshold !== undefined) request.compactThreshold = compactThreshold;
    const prepared = prepareRequest(request, process.env);
    if (options.json) {
      // Exactly the bytes the transport sends (shared/request-body.ts).
      process.stdout.write(`${serializeRequestBody(prepared)}\n`);
      return;
    }
    if (options.explain) process.stdout.write(`${formatRouteHeader(profile, provider)}\n`);
    process.stdout.write(`${formatExplainTable(history, prepared)}\n`);
    const records = await store.listRequests(sessionId);
    const handles = formatHandleDecisions(records);
    if (handles) process.stdout.write(`${handles}\n`);
    const restored = formatSessionRestores(records);
    if (restored) process.stdout.write(`${restored}\n`);
    const failed = formatFailedRequests(records);
    if (failed) process.stdout.write(`${failed}\n`);
    // What compaction summarised and what its tail kept (SPEC §26.6): the history above starts after it.
    const compactions = compactionLines(session.modelConfig, sessionId);
    if (compactions.length) process.stdout.write(`${compactions.join('\n')}\n`);
    const providerDrops = formatProviderDrops(records);
    if (providerDrops) process.stdout.write(`${providerDrops}\n`);
    if (!options.explain) {
      process.stdout.write(
        `route ${prepared.routeKey} (${route.api}) · carriers sent: ${prepared.carriersSent.join(', ') || 'none'}\n`,
      );
    }
  });
}
