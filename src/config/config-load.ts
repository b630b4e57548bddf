import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, parseDocument } from 'yaml';
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import type { WireApi } from '../core/origin.js';
import type { ReasoningEffort, ReasoningOptions, ReasoningOverrides } from '../core/reasoning-options.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from '../core/timeouts.js';
import type { Carrier, RouteOverride } from '../replay/replay-types.js';
import { configSchema, type RawConfig } from './config-schema.js';
import { mcpServersFromConfig, type McpServerSettings } from './config-mcp.js';

/** Effective settings from `$HERMES_HOME/config.yaml`, normalised. */
export interface HermesConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  api?: WireApi;
  reasoning: { enabled: boolean; effort?: ReasoningEffort; budgetTokens?: number };
  /** `reasoning_overrides`: per-model reasoning settings, applied to each request's own model. */
  reasoningOverrides: ReasoningOverrides;
  reasoningEcho: boolean;
  routes: RouteOverride[];
  /** `compaction:` (SPEC §16, §26.6; docs/sessions.md "Compaction"). */
  compaction: {
    threshold: number;
    keepTurns: number;
    contextWindow?: number;
    inPlace: boolean;
    tail: 'lean' | 'turns';
    minTailUserMessages: number;
  };
  maxIterations: number;
  /** `storage.url`: the session store to use (overridden by HERMES_DATABASE_URL). */
  storageUrl?: string;
  /** `timeouts`: limits of each provider request, in milliseconds (config.yaml gives seconds). */
  timeouts: Timeouts;
  /** `system_prompt`: replaces the default system prompt of new chat sessions. */
  systemPrompt?: string;
  /** `instructions`: appended to the system prompt of new chat sessions. */
  instructions?: string;
  /** `mcp_servers`: MCP servers of config.yaml (docs/mcp.md); `.mcp.json` adds the workspace's own. */
  mcpServers: McpServerSettings[];
  /** `gateway.models`: model names a front-door client may send, each naming a route. */
  gatewayModels: GatewayModelSetting[];
  /** Path the config was read from, when a file existed. */
  path?: string;
}

/** One `gateway.models` entry, normalised. */
export interface GatewayModelSetting {
  /** The model name a client sends, or a prefix ending in `*`. */
  name: string;
  provider: string;
  model: string;
  baseUrl?: string;
  api?: WireApi;
}

/** Defaults when no config file exists. */
export const DEFAULT_CONFIG: HermesConfig = {
  reasoning: { enabled: true },
  reasoningOverrides: {},
  reasoningEcho: false,
  routes: [],
  compaction: { threshold: 0.8, keepTurns: 20, inPlace: true, tail: 'lean', minTailUserMessages: 3 },
  maxIterations: 25,
  timeouts: DEFAULT_TIMEOUTS,
  mcpServers: [],
  gatewayModels: [],
};

/**
 * Reads and validates `<home>/config.yaml`. A missing file gives the defaults; a malformed
 * file is a {@link UsageError} naming the file and the first bad key, e.g.
 * `config.yaml: reasoning.effort: Invalid option: expected one of …`.
 */
export function loadConfig(home: string): HermesConfig {
  const path = join(home, 'config.yaml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...DEFAULT_CONFIG };
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseConfigText(text, path);
}

/**
 * The config for a command that only reads the store (`sessions list|show|export`, `routes
 * verdicts`, `gateway keys`): a config.yaml that does not load is one warning line, and the
 * command goes on with the defaults — with the file's `storage.url` when it can still be read, so
 * the command reads the store the file names.
 */
export function loadConfigForReading(home: string, warn: (line: string) => void): HermesConfig {
  try {
    return loadConfig(home);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    warn(`${error.message}; reading with the default settings`);
    const config: HermesConfig = { ...DEFAULT_CONFIG };
    try {
      const url: unknown = parseDocument(readFileSync(join(home, 'config.yaml'), 'utf8')).getIn(['storage', 'url']);
      if (typeof url === 'string' && url.trim() !== '') config.storageUrl = url;
    } catch {
      // Nothing more can be read from it: the defaults stand.
    }
    return config;
  }
}

/**
 * A YAML syntax error in one line: where (line and column), the parser's whole description, and
 * the line it points at (the parser's own message ends with a multi-line excerpt instead).
 */
export function yamlProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const what = (message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').split('\n')[0] ?? '').trim();
  const position = (error as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
  if (!position) return `not valid YAML: ${what}`;
  const source = (text.split(/\r?\n/)[position.line - 1] ?? '').trim();
  const shown = source.length > 80 ? `${source.slice(0, 79)}…` : source;
  return (
    `not valid YAML at line ${position.line}, column ${position.col}: ${what}` +
    (shown ? ` (line ${position.line}: ${JSON.stringify(shown)})` : '')
  );
}

/** Validates config text (exported for tests). */
export function parseConfigText(text: string, path = 'config.yaml'): HermesConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new UsageError(`${path}: ${yamlProblem(error, text)}`);
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new UsageError(`${path}: ${describeIssue(result.error)}`);
  const config = result.data;
  const modelObject = typeof config.model === 'object' ? config.model : undefined;
  const normalised: HermesConfig = {
    ...DEFAULT_CONFIG,
    reasoning: { enabled: config.reasoning?.enabled ?? true },
    reasoningOverrides: Object.fromEntries(
      Object.entries(config.reasoning_overrides ?? {}).map(([model, override]) => [model, reasoningSettings(override)]),
    ),
    reasoningEcho: config.reasoning_echo ?? modelObject?.reasoning_echo ?? false,
    routes: (config.routes ?? []).map((row) => {
      const override: RouteOverride = { carriers: row.carriers as Carrier[] };
      if (row.providers) override.providers = row.providers;
      if (row.hosts) override.hosts = row.hosts;
      if (row.must_echo !== undefined) override.mustEcho = row.must_echo;
      if (row.keep_thinking) override.keepThinking = row.keep_thinking as RouteOverride['keepThinking'] & object;
      return override;
    }),
    compaction: {
      threshold: config.compaction?.threshold ?? DEFAULT_CONFIG.compaction.threshold,
      keepTurns: config.compaction?.keep_turns ?? DEFAULT_CONFIG.compaction.keepTurns,
      inPlace: config.compaction?.in_place ?? DEFAULT_CONFIG.compaction.inPlace,
      tail: config.compaction?.tail ?? DEFAULT_CONFIG.compaction.tail,
      minTailUserMessages: config.compaction?.min_tail_user_messages ?? DEFAULT_CONFIG.compaction.minTailUserMessages,
      ...(config.compaction?.context_window ? { contextWindow: config.compaction.context_window } : {}),
    },
    maxIterations: config.max_iterations ?? DEFAULT_CONFIG.maxIterations,
    timeouts: {
      firstByte: secondsToMs(config.timeouts?.first_byte) ?? DEFAULT_TIMEOUTS.firstByte,
      idle: secondsToMs(config.timeouts?.idle) ?? DEFAULT_TIMEOUTS.idle,
      total: secondsToMs(config.timeouts?.total) ?? DEFAULT_TIMEOUTS.total,
    },
    mcpServers: mcpServersFromConfig(config.mcp_servers),
    gatewayModels: Object.entries(config.gateway?.models ?? {}).map(([name, entry]) => gatewayModel(name, entry)),
    path,
  };
  if (config.reasoning?.effort) normalised.reasoning.effort = config.reasoning.effort;
  if (config.reasoning?.budget_tokens) normalised.reasoning.budgetTokens = config.reasoning.budget_tokens;
  const provider = config.provider ?? modelObject?.provider;
  if (provider) normalised.provider = provider;
  const model = typeof config.model === 'string' ? config.model : modelObject?.name;
  if (model) normalised.model = model;
  const baseUrl = config.base_url ?? modelObject?.base_url;
  if (baseUrl) normalised.baseUrl = baseUrl;
  if (config.api) normalised.api = config.api;
  if (config.storage?.url) normalised.storageUrl = config.storage.url;
  if (config.system_prompt) normalised.systemPrompt = config.system_prompt;
  if (config.instructions) normalised.instructions = config.instructions;
  return normalised;
}

function gatewayModel(
  name: string,
  entry: string | { provider: string; model: string; base_url?: string | undefined; api?: WireApi | undefined },
): GatewayModelSetting {
  if (typeof entry === 'string') {
    const colon = entry.indexOf(':');
    return { name, provider: entry.slice(0, colon), model: entry.slice(colon + 1) };
  }
  const setting: GatewayModelSetting = { name, provider: entry.provider, model: entry.model };
  if (entry.base_url) setting.baseUrl = entry.base_url;
  if (entry.api) setting.api = entry.api;
  return setting;
}

/** A `reasoning` block of the file (or one `reasoning_overrides` entry) as reasoning options: only the keys it sets. */
function reasoningSettings(raw: NonNullable<RawConfig['reasoning']>): Partial<ReasoningOptions> {
  const settings: Partial<ReasoningOptions> = {};
  if (raw.enabled !== undefined) settings.enabled = raw.enabled;
  if (raw.effort !== undefined) settings.effort = raw.effort;
  if (raw.budget_tokens !== undefined) settings.budgetTokens = raw.budget_tokens;
  return settings;
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Math.round(seconds * 1000);
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid config';
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    const known = knownKeysAt(configSchema, issue.path);
    const hint = known.length ? ` (check the spelling; known keys here: ${known.join(', ')})` : '';
    return `${where}unknown key ${issue.keys.map((key) => `"${key}"`).join(', ')}${hint}`;
  }
  const where = issue.path.length ? issue.path.join('.') : '(top level)';
  // A bad record key (`mcp_servers.<name>`) says what a key must look like, not "Invalid key in record".
  const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return `${where}: ${message}`;
}

/**
 * The keys the schema accepts at `path` (a zod issue path), so an unknown-key error can show
 * what was probably meant. Walks optional wrappers, arrays (numeric segments) and unions (the
 * object member); empty when the path leads nowhere known.
 */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  let remaining = [...path];
  for (let step = 0; current && step < 32; step++) {
    if (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodUnion) {
      current = (current.options as z.ZodType[]).find((option) => option instanceof z.ZodObject);
    } else if (current instanceof z.ZodRecord) {
      // A record's keys are names the user chose (`mcp_servers.<name>`, a model id of
      // `reasoning_overrides`): skip one, read its value.
      if (typeof remaining[0] !== 'string') return [];
      remaining = remaining.slice(1);
      current = current.valueType as z.ZodType;
    } else if (current instanceof z.ZodArray) {
      if (typeof remaining[0] !== 'number') return [];
      remaining = remaining.slice(1);
      current = current.element as z.ZodType;
    } else if (current instanceof z.ZodObject) {
      const shape = current.shape as Record<string, z.ZodType>;
      if (!remaining.length) return Object.keys(shape);
      const [head, ...rest] = remaining;
      current = typeof head === 'string' ? shape[head] : undefined;
      remaining = rest;
    } else return [];
  }
  return [];
}
