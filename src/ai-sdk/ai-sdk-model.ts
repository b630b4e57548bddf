import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  SharedV4Warning,
} from '@ai-sdk/provider';
import type { Message } from '../core/message.js';
import type { ReasoningOptions, ReasoningOverrides } from '../core/reasoning-options.js';
import type { Route } from '../core/route.js';
import type { Timeouts } from '../core/timeouts.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { providerApiKey } from '../providers/provider-registry.js';
import type { RouteOverride } from '../replay/replay-route-profile.js';
import { type RequestRoute, resolveRequestRoute } from '../replay-api.js';
import { requestOnce, turnTransport, withOrigin, type TurnResponse } from '../runtime/runtime-request.js';
import { turnRouteProfile, type AgentEvent } from '../runtime/runtime-turn-options.js';
import type { SessionStore } from '../storage/session-store.js';
import { finishReasonOf, generateContent, usageOf } from './ai-sdk-content.js';
import { openRouteMemory, type AiSdkRouteMemory } from './ai-sdk-memory.js';
import { callTools, historyFromPrompt, settingWarnings } from './ai-sdk-prompt.js';
import { StreamPartWriter } from './ai-sdk-stream.js';

/** Settings of {@link createHermes}: the route, and how Hermes requests reasoning on it. */
export interface HermesModelSettings extends RequestRoute {
  /** Provider key. Default: the provider's key variable (docs/providers.md). Never logged or kept. */
  apiKey?: string | undefined;
  /** Default: reasoning on, no effort; a call's `reasoning` option (generateText `reasoning`) sets the effort. */
  reasoning?: ReasoningOptions | undefined;
  /** Per-model reasoning settings keyed by model id (config.yaml `reasoning_overrides`). */
  reasoningOverrides?: ReasoningOverrides | undefined;
  /** `model.reasoning_echo` opt-in (docs/replay.md). */
  reasoningEcho?: boolean | undefined;
  /** User route rows, matched before the built-in route table (docs/replay.md). */
  routes?: readonly RouteOverride[] | undefined;
  /**
   * Where learned verdicts are kept store-wide (e.g. `openSessionStore()` from `hermes-ts`:
   * shared with `hermes routes verdicts` and every process using that store). Default: in
   * memory, for the life of this model object. Only its verdict table is used.
   */
  store?: SessionStore | undefined;
  /** A `fetch` provider requests go through instead of the pooled HTTP client (TransportRequest.fetch). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Time limits of each provider request, in milliseconds. Default: first byte 600 s, idle 300 s, total 3600 s. */
  timeouts?: Timeouts | undefined;
  /** Default: a silent logger. */
  logger?: Logger | undefined;
}

/** What one call sends. */
interface PreparedCall {
  history: Message[];
  tools: ToolDefinition[];
  reasoning: ReasoningOptions;
  warnings: SharedV4Warning[];
}

/**
 * An AI SDK language model (specification v4, `ai@7`) backed by a Hermes transport and the
 * replay engine: each call is one provider request, built from the prompt's canonical history
 * exactly as a stored session's would be, learning a rejected carrier or effort and retrying
 * once (SPEC §13.3); the AI SDK runs the tools.
 */
export class HermesLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly route: Route;
  private readonly logger: Logger;
  private memory: Promise<AiSdkRouteMemory> | undefined;

  constructor(private readonly settings: HermesModelSettings) {
    this.route = resolveRequestRoute(settings);
    this.provider = `hermes.${this.route.provider}`;
    this.modelId = this.route.model;
    this.logger = settings.logger ?? silentLogger();
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const call = this.prepare(options);
    const response = await this.send(call, options, false);
    return {
      content: generateContent(response.message),
      finishReason: finishReasonOf(response.finishReason, response.message),
      usage: usageOf(response.usage),
      response: { modelId: this.modelId },
      warnings: call.warnings,
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const call = this.prepare(options);
    let controller: ReadableStreamDefaultController<LanguageModelV4StreamPart> | undefined;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: (opened) => {
        controller = opened;
      },
    });
    const enqueue = (part: LanguageModelV4StreamPart) => controller?.enqueue(part);
    enqueue({ type: 'stream-start', warnings: call.warnings });
    const writer = new StreamPartWriter(enqueue);
    let announceStart = (): void => {};
    const started = new Promise<void>((resolve) => (announceStart = resolve));
    const done = this.send(call, options, true, (event) => {
      writer.onEvent(event);
      if (writer.started) announceStart();
    }).then(
      (response) => {
        writer.finish(response.message, response.usage, response.finishReason);
        controller?.close();
      },
      (error: unknown) => {
        // Before any content part the call fails as a whole (the AI SDK may retry it); after, in the stream.
        if (!writer.started) throw error;
        enqueue({ type: 'error', error });
        controller?.close();
      },
    );
    await Promise.race([started, done]);
    return { stream };
  }

  private prepare(options: LanguageModelV4CallOptions): PreparedCall {
    const { tools, warnings } = callTools(options);
    const base = this.settings.reasoning ?? { enabled: true };
    const asked = options.reasoning;
    const reasoning =
      asked === undefined || asked === 'provider-default' ? base : { ...base, enabled: true, effort: asked };
    return {
      history: historyFromPrompt(options.prompt),
      tools,
      reasoning,
      warnings: [...warnings, ...settingWarnings(options)],
    };
  }

  private async send(
    call: PreparedCall,
    options: LanguageModelV4CallOptions,
    stream: boolean,
    onEvent?: (event: AgentEvent) => void,
  ): Promise<TurnResponse> {
    this.memory ??= openRouteMemory(this.route, this.settings.store);
    const memory = await this.memory;
    const session = await memory.store.getSession(memory.sessionId);
    const profile = turnRouteProfile({
      route: this.route,
      routeOverrides: this.settings.routes ?? [],
      echoOptIn: this.settings.reasoningEcho ?? false,
    });
    const transport = await turnTransport({ route: this.route });
    const request = requestOnce(transport, call.history, session?.modelConfig ?? {}, profile, {
      store: memory.store,
      sessionId: memory.sessionId,
      route: this.route,
      apiKey: this.settings.apiKey ?? providerApiKey(this.route.provider, process.env),
      reasoning: call.reasoning,
      reasoningOverrides: this.settings.reasoningOverrides,
      logger: this.logger,
      stream,
      clientTools: call.tools,
      maxTokens: options.maxOutputTokens,
      signal: options.abortSignal,
      fetch: this.settings.fetch,
      timeouts: this.settings.timeouts,
      ...(onEvent ? { onEvent } : {}),
    });
    const response = await request.catch((error: unknown) => {
      // An aborted call rejects with the signal's reason, as fetch does (the AI SDK tells aborts apart by it).
      if (options.abortSignal?.aborted) throw options.abortSignal.reason ?? error;
      throw error;
    });
    return { ...response, message: withOrigin(response.message, profile, response.usage) };
  }
}
