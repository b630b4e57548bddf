import type { Command } from 'commander';
import { redactUrl } from '../core/redact.js';
import type { HermesConfig } from '../config/config-load.js';
import { hermesHome } from '../storage/store-paths.js';
import { printJson } from './cli-output.js';
import { existsSync } from 'node:fs';

/** The config modules (schema, YAML), loaded when an action runs so `hermes --help` loads neither. */
const configEdit = () => import('../config/config-edit.js');

/** Registers `hermes config show|path|set|unset`. */
export function registerConfigCommand(program: Command): void {
  const config = program
    .command('config')
    .description('Show or edit $HERMES_HOME/config.yaml (every change is validated before it is written).');

  config
    .command('path')
    .description('Print the path of config.yaml.')
    .action(async () => {
      const { configPath } = await configEdit();
      process.stdout.write(`${configPath(hermesHome())}\n`);
    });

  config
    .command('show')
    .description('Print the effective settings (config.yaml over the defaults).')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const [{ configPath }, { loadConfig }, { stringify }] = await Promise.all([
        configEdit(),
        import('../config/config-load.js'),
        import('yaml'),
      ]);
      const home = hermesHome();
      const effective = publicView(loadConfig(home));
      if (flags.json) {
        printJson(effective);
        return;
      }
      const path = configPath(home);
      const header = existsSync(path) ? `# ${path}` : `# ${path} does not exist yet: these are the defaults`;
      process.stdout.write(`${header}\n${stringify(effective)}`);
    });

  config
    .command('set <key> <value>')
    .description('Set a key (dotted for nested keys) to a value; numbers, true/false and [a, b] keep their type.')
    .addHelpText(
      'after',
      `
Examples:
  hermes config set reasoning.effort high
  hermes config set compaction.threshold 0.7
  hermes config set provider deepseek`,
    )
    .action(async (key: string, value: string) => {
      const { configPath, parseValue, readConfigDocument, setConfigValue, writeConfigDocument } = await configEdit();
      const home = hermesHome();
      const document = readConfigDocument(home);
      setConfigValue(document, key, parseValue(value));
      if (key === 'provider' || key === 'model.provider') {
        const { checkConfiguredProvider } = await import('./model-spec.js');
        const baseUrl = document.get('base_url') ?? document.getIn(['model', 'base_url']);
        await checkConfiguredProvider(document.getIn(key.split('.')), typeof baseUrl === 'string' && baseUrl !== '');
      }
      writeConfigDocument(home, document);
      process.stdout.write(`${key} = ${JSON.stringify(document.getIn(key.split('.')))} (${configPath(home)})\n`);
    });

  config
    .command('unset <key>')
    .description('Remove a key (dotted for nested keys), so its default applies.')
    .action(async (key: string) => {
      const { configPath, deleteConfigValue, readConfigDocument, writeConfigDocument } = await configEdit();
      const home = hermesHome();
      const document = readConfigDocument(home);
      deleteConfigValue(document, key);
      writeConfigDocument(home, document);
      process.stdout.write(`${key} removed (${configPath(home)})\n`);
    });
}

/** The effective config in the file's own key names (snake_case), without the internal path. */
function publicView(config: HermesConfig): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  if (config.provider) view['provider'] = config.provider;
  if (config.model) view['model'] = config.model;
  // Shown without its credentials (a ?key= or a password), like everything hermes prints.
  if (config.baseUrl) view['base_url'] = redactUrl(config.baseUrl);
  if (config.api) view['api'] = config.api;
  view['reasoning'] = {
    enabled: config.reasoning.enabled,
    ...(config.reasoning.effort ? { effort: config.reasoning.effort } : {}),
    ...(config.reasoning.budgetTokens ? { budget_tokens: config.reasoning.budgetTokens } : {}),
  };
  if (Object.keys(config.reasoningOverrides).length) {
    view['reasoning_overrides'] = Object.fromEntries(
      Object.entries(config.reasoningOverrides).map(([model, override]) => [
        model,
        {
          ...(override.enabled === undefined ? {} : { enabled: override.enabled }),
          ...(override.effort ? { effort: override.effort } : {}),
          ...(override.budgetTokens ? { budget_tokens: override.budgetTokens } : {}),
        },
      ]),
    );
  }
  view['reasoning_echo'] = config.reasoningEcho;
  view['compaction'] = {
    threshold: config.compaction.threshold,
    keep_turns: config.compaction.keepTurns,
    in_place: config.compaction.inPlace,
    tail: config.compaction.tail,
    min_tail_user_messages: config.compaction.minTailUserMessages,
    ...(config.compaction.contextWindow ? { context_window: config.compaction.contextWindow } : {}),
  };
  view['max_iterations'] = config.maxIterations;
  view['timeouts'] = {
    first_byte: config.timeouts.firstByte / 1000,
    idle: config.timeouts.idle / 1000,
    total: config.timeouts.total / 1000,
  };
  if (config.routes.length) view['routes'] = config.routes;
  if (config.storageUrl) view['storage'] = { url: redactUrl(config.storageUrl) };
  return view;
}
