import { z } from 'zod';
import { REASONING_EFFORTS } from '../core/reasoning-options.js';

/** Carrier names accepted in route override rows. */
const carrierSchema = z.enum(['reasoning_content', 'reasoning', 'reasoning_details']);

/** One user route row (SPEC §23.4), matched before the built-in table. */
const routeRowSchema = z
  .object({
    providers: z.array(z.string().min(1)).optional(),
    hosts: z.array(z.string().min(1)).optional(),
    carriers: z.array(carrierSchema),
    must_echo: z.boolean().optional(),
    keep_thinking: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((row) => (row.providers?.length ?? 0) + (row.hosts?.length ?? 0) > 0, {
    message: 'a route row needs at least one of providers or hosts',
  });

const reasoningSchema = z
  .object({
    enabled: z.boolean().optional(),
    effort: z.enum(REASONING_EFFORTS).optional(),
    budget_tokens: z.number().int().positive().optional(),
  })
  .strict();

/** `model:` may be a plain id or an object (SPEC §20 `model.reasoning_echo`). */
const modelSchema = z.union([
  z.string().min(1),
  z
    .object({
      name: z.string().min(1).optional(),
      provider: z.string().min(1).optional(),
      base_url: z.string().min(1).optional(),
      reasoning_echo: z.boolean().optional(),
    })
    .strict(),
]);

const compactionSchema = z
  .object({
    threshold: z.number().gt(0).lte(1).optional(),
    keep_turns: z.number().int().min(1).optional(),
    context_window: z.number().int().positive().optional(),
    in_place: z.boolean().optional(),
    tail: z.enum(['lean', 'turns']).optional(),
    min_tail_user_messages: z.number().int().min(0).max(1000).optional(),
  })
  .strict();

/** Where sessions live: `postgres://…` for a gateway fleet, `sqlite:PATH`, default `$HERMES_HOME/state.db`. */
const storageSchema = z.object({ url: z.string().min(1).optional() }).strict();

/** Seconds. A limit of each provider request (see `Timeouts`); fractions allowed. */
const secondsSchema = z.number().positive().max(86_400);

/** `timeouts:` limits of each provider request, in seconds. */
const timeoutsSchema = z
  .object({ first_byte: secondsSchema.optional(), idle: secondsSchema.optional(), total: secondsSchema.optional() })
  .strict();

/** A name usable in `mcp__<server>__<tool>` tool names (docs/mcp.md). */
const mcpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/, 'an MCP server name is 1-32 letters, digits, "_" or "-"');

/**
 * `mcp_servers.<name>`: a stdio server (`command`, `args`, `env`, `cwd`) or a Streamable HTTP one
 * (`url`, `headers`), plus Hermes's own keys; `{enabled: false}` alone switches off a `.mcp.json`
 * server of the same name (docs/mcp.md).
 */
const mcpServerSchema = z
  .object({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** Its tools run without asking (default false: each call needs approval, like run_shell). */
    trust: z.boolean().optional(),
    enabled: z.boolean().optional(),
    startup_timeout: secondsSchema.optional(),
    tool_timeout: secondsSchema.optional(),
    /** Which of its tools are offered: names as the server lists them, `*` matching any run of characters. */
    tools: z
      .object({
        include: z.array(z.string().min(1)).optional(),
        exclude: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((server, context) => {
    const stdioKeys = (['args', 'env', 'cwd'] as const).filter((key) => server[key] !== undefined);
    if (server.command !== undefined && server.url !== undefined) {
      context.addIssue({ code: 'custom', message: 'give either command (stdio) or url (Streamable HTTP), not both' });
    } else if (server.command === undefined && server.url === undefined && server.enabled !== false) {
      context.addIssue({ code: 'custom', message: 'needs command (a stdio server) or url (a Streamable HTTP server)' });
    } else if (server.url !== undefined && stdioKeys.length > 0) {
      context.addIssue({ code: 'custom', message: `${stdioKeys.join(', ')} apply to stdio servers, not to url` });
    } else if (server.command !== undefined && server.headers !== undefined) {
      context.addIssue({ code: 'custom', message: 'headers apply to url servers, not to command' });
    }
  });

/** `mcp_servers:` MCP servers whose tools the agent offers as `mcp__<server>__<tool>`. */
const mcpServersSchema = z.record(mcpServerNameSchema, mcpServerSchema);

/** One raw `mcp_servers.<name>` entry. */
export type RawMcpServer = z.infer<typeof mcpServerSchema>;
/**
 * One `gateway.models` entry: the route a front-door client reaches by naming this model
 * (`PROVIDER:MODEL`, or the route's fields). docs/gateway.md "Choosing the route by model name".
 */
const gatewayModelSchema = z.union([
  z.string().regex(/^[^:\s]+:\S+$/, 'expected "PROVIDER:MODEL" (e.g. deepseek:deepseek-v4-flash) or an object'),
  z
    .object({
      provider: z.string().min(1),
      model: z.string().min(1),
      base_url: z.string().min(1).optional(),
      api: z
        .enum(['chat_completions', 'anthropic_messages', 'bedrock_converse', 'gemini', 'codex_responses'])
        .optional(),
    })
    .strict(),
]);

/** `gateway:` settings of `hermes gateway`. */
const gatewaySchema = z.object({ models: z.record(z.string().min(1), gatewayModelSchema).optional() }).strict();

/** The whole `config.yaml` (every key optional; unknown keys are errors that name the key). */
export const configSchema = z
  .object({
    provider: z.string().min(1).optional(),
    model: modelSchema.optional(),
    base_url: z.string().min(1).optional(),
    api: z.enum(['chat_completions', 'anthropic_messages', 'bedrock_converse', 'gemini', 'codex_responses']).optional(),
    reasoning: reasoningSchema.optional(),
    /** Per-model reasoning settings, keyed by model id; each entry takes the keys of `reasoning`. */
    reasoning_overrides: z.record(z.string().min(1), reasoningSchema).optional(),
    reasoning_echo: z.boolean().optional(),
    routes: z.array(routeRowSchema).optional(),
    compaction: compactionSchema.optional(),
    max_iterations: z.number().int().min(1).max(500).optional(),
    storage: storageSchema.optional(),
    timeouts: timeoutsSchema.optional(),
    gateway: gatewaySchema.optional(),
    /** Replaces the default system prompt of new chat sessions. */
    system_prompt: z.string().min(1).optional(),
    /** Appended to the system prompt of new chat sessions. */
    instructions: z.string().min(1).optional(),
    mcp_servers: mcpServersSchema.optional(),
  })
  .strict();

/** The raw parsed config file. */
export type RawConfig = z.infer<typeof configSchema>;
