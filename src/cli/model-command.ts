import type { Command } from 'commander';
import { providerModels } from '../providers/provider-models.js';
import { PROVIDERS } from '../providers/provider-registry.js';
import { hermesHome } from '../storage/store-paths.js';
import { printJson, styles, useColor } from './cli-output.js';
import { parseModelChoice } from './model-spec.js';

/** Registers `hermes model` (list providers and models) and `hermes model set PROVIDER[:MODEL]`. */
export function registerModelCommand(program: Command): void {
  const model = program
    .command('model')
    .description('List providers (API key set or not) and their known models; `model set` picks the default.')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => listModels(Boolean(flags.json)));

  model
    .command('set <choice>')
    .description(
      'Set the default provider and model in config.yaml: PROVIDER:MODEL, or PROVIDER for its default model.',
    )
    .addHelpText(
      'after',
      `
Examples:
  hermes model set deepseek                     deepseek with its default model
  hermes model set anthropic:claude-sonnet-4-5
  hermes model set ollama:gpt-oss:20b           the model id is everything after the first ":"
  hermes model set emulator:deepseek            the built-in offline emulator`,
    )
    .action(async (choice: string) => {
      // The config modules (schema, YAML) load when an action runs, so `hermes --help` loads neither.
      const [{ readConfigDocument, writeConfigDocument, configPath }, { isMap }] = await Promise.all([
        import('../config/config-edit.js'),
        import('yaml'),
      ]);
      const parsed = parseModelChoice(choice);
      const home = hermesHome();
      const document = readConfigDocument(home);
      document.set('provider', parsed.provider);
      const modelNode = document.get('model', true);
      if (isMap(modelNode)) {
        // The object form keeps its other keys (reasoning_echo); provider and URL move with the choice.
        document.deleteIn(['model', 'provider']);
        document.deleteIn(['model', 'base_url']);
        if (parsed.model === undefined) document.deleteIn(['model', 'name']);
        else document.setIn(['model', 'name'], parsed.model);
      } else if (parsed.model === undefined) document.delete('model');
      else document.set('model', parsed.model);
      // A base URL belongs to the provider it was written for.
      document.delete('base_url');
      document.delete('api');
      writeConfigDocument(home, document);
      const effective = parsed.model ?? providerModels(parsed.provider)?.defaultModel ?? '(emulator default)';
      process.stdout.write(`default model: ${parsed.provider} ${effective} (${configPath(home)})\n`);
    });
}

async function listModels(json: boolean): Promise<void> {
  const [{ loadConfig }, { knownRoute }] = await Promise.all([
    import('../config/config-load.js'),
    import('./model-routes.js'),
  ]);
  const config = loadConfig(hermesHome());
  const rows = PROVIDERS.map((info) => {
    const models = [...(providerModels(info.id)?.models ?? [])];
    return {
      provider: info.id,
      api: info.api,
      key_env: info.apiKeyEnv ?? null,
      key_set: info.apiKeyEnv ? Boolean(process.env[info.apiKeyEnv]) : null,
      default_model: info.defaultModel ?? null,
      models,
      routes: models.map((model) => knownRoute(info, model, config)),
    };
  });
  const current = { provider: config.provider ?? null, model: config.model ?? null };
  if (json) {
    printJson({ current, providers: rows });
    return;
  }
  const style = styles(useColor(process.stdout));
  const currentLine = config.provider
    ? `${config.provider} ${config.model ?? `(default: ${providerModels(config.provider)?.defaultModel ?? 'none'})`}`
    : 'none (offline emulator); choose one with hermes model set PROVIDER[:MODEL]';
  process.stdout.write(`current: ${currentLine}\n\n`);
  for (const row of rows) {
    const key =
      row.key_env === null
        ? style.dim('no key needed')
        : row.key_set
          ? style.green(`${row.key_env} set`)
          : style.dim(`${row.key_env} not set`);
    const marker = row.provider === config.provider ? '*' : ' ';
    process.stdout.write(`${marker} ${row.provider.padEnd(17)} ${key}\n`);
    if (row.models.length) {
      const models = row.models.map((id) => (id === row.default_model ? `${id} (default)` : id)).join(', ');
      process.stdout.write(`    ${models}\n`);
    } else process.stdout.write(`    ${style.dim('no known models: give one as PROVIDER:MODEL')}\n`);
  }
}
