import { z } from 'zod';

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
    effort: z.enum(['minimal', 'low', 'medium', 'high', 'max']).optional(),
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

/** The whole `config.yaml` (every key optional; unknown keys are errors that name the key). */
export const configSchema = z
  .object({
    provider: z.string().min(1).optional(),
    model: modelSchema.optional(),
    base_url: z.string().min(1).optional(),
    api: z.enum(['chat_completions', 'anthropic_messages', 'bedrock_converse', 'gemini', 'codex_responses']).optional(),
    reasoning: reasoningSchema.optional(),
    reasoning_echo: z.boolean().optional(),
    routes: z.array(routeRowSchema).optional(),
    compaction: compactionSchema.optional(),
    max_iterations: z.number().int().min(1).max(500).optional(),
    storage: storageSchema.optional(),
    timeouts: timeoutsSchema.optional(),
    /** Replaces the default system prompt of new chat sessions. */
    system_prompt: z.string().min(1).optional(),
    /** Appended to the system prompt of new chat sessions. */
    instructions: z.string().min(1).optional(),
  })
  .strict();

/** The raw parsed config file. */
export type RawConfig = z.infer<typeof configSchema>;
