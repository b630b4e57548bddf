import type { Command } from 'commander';

/**
 * The route flags of the commands that run agent turns (`hermes chat`, `hermes acp`), read into
 * `RouteFlags` (runtime-route.ts): `--provider`, `--model`, `--base-url`, `--api-key`, `--api`.
 */
export function addRouteOptions(command: Command): Command {
  return command
    .option('--provider <id>', 'provider id (e.g. openrouter, deepseek, anthropic) or emulator:PERSONA')
    .option('--model <id>', 'model id')
    .option('--base-url <url>', 'provider base URL (e.g. http://127.0.0.1:8080/v1)')
    .option('--api-key <key>', "API key (default: the provider's environment variable; never stored)")
    .option(
      '--api <api>',
      'wire API override: chat_completions, anthropic_messages, bedrock_converse, gemini, codex_responses',
    );
}
