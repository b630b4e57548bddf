import { toolDefinitions } from '../tools/tool-registry.js';
import { buildSystemPrompt } from './system-prompt.js';
import { gatherProjectContext } from './system-prompt-context.js';

/** The `config.yaml` keys that shape the default system prompt. */
export interface SystemPromptConfig {
  /** `system_prompt`: replaces the default role and working rules. */
  systemPrompt?: string | undefined;
  /** `instructions`: appended after everything else. */
  instructions?: string | undefined;
}

/**
 * The system prompt a new session stores as its first message when nobody supplied one: a
 * `hermes chat` session, and a gateway session whose client sent no system message
 * (docs/gateway.md). The built-in tools, the environment of `workspace` and its instruction
 * files, with `config.yaml` `system_prompt` / `instructions` applied.
 */
export function defaultSessionSystemPrompt(config: SystemPromptConfig, workspace: string): string {
  return buildSystemPrompt({
    base: config.systemPrompt,
    instructions: config.instructions,
    toolNames: toolDefinitions().map((tool) => tool.name),
    context: gatherProjectContext(workspace),
  });
}
