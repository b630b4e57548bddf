import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ (docs/architecture.md): each top-level folder lists the folders it may import.
 * Imports point one way, from the edge (cli, gateway) down to core:
 *
 *   core → replay → providers → config, logging, tools → mcp, transports → storage → runtime → gateway, acp, cli, ai-sdk
 *
 * - core and replay are pure (no I/O; enforced below as well).
 * - providers is the provider table (ids, base URLs, key variables, reasoning parameters): data
 *   over core, which may use replay's route facts.
 * - config reads config.yaml into typed settings (it names replay's carriers and route rows).
 * - logging is a leaf (pino); the pure layers and the transports never log.
 * - tools are the built-in tools the runtime runs (they may log).
 * - mcp is the MCP client: servers from config.yaml and `.mcp.json`, their tools as `tools/` Tools.
 *   The CLI starts them and hands their tools to the runtime, like the built-in ones.
 * - emulators stand beside the product: they import core and the transports' wire types only
 *   (`transports/<api>/<api>-wire.ts`), never the replay policy they check, and only the CLI
 *   (with `import()`, so other commands never load them) and the tests import them.
 */
const LAYERS = {
  core: [],
  replay: ['core'],
  providers: ['core', 'replay'],
  logging: ['core'],
  tools: ['core', 'logging'],
  config: ['core', 'replay', 'providers'],
  mcp: ['core', 'logging', 'tools', 'config'],
  transports: ['core', 'replay', 'providers', 'config'],
  storage: ['core', 'logging', 'config'],
  runtime: ['core', 'replay', 'providers', 'logging', 'tools', 'config', 'transports', 'storage'],
  // OpenTelemetry tracing over the runtime's turn observer (the SDK itself is loaded only when configured).
  telemetry: ['core', 'replay', 'runtime'],
  gateway: ['core', 'logging', 'config', 'runtime', 'storage', 'telemetry'],
  // The continuity probe (SPEC §26.5): drives the runtime and the gateway's doors like their clients.
  probe: ['core', 'replay', 'providers', 'logging', 'tools', 'config', 'transports', 'storage', 'runtime', 'gateway'],
  // The ACP agent (`hermes acp`): runs agent turns for an editor, like the CLI's chat.
  acp: ['core', 'logging', 'tools', 'config', 'storage', 'runtime'],
  // The AI SDK provider (`hermes-ts/ai-sdk`): above transports and replay, like runtime, whose request loop it uses.
  'ai-sdk': ['core', 'replay', 'providers', 'logging', 'config', 'transports', 'storage', 'runtime'],
  cli: [
    'core',
    'replay',
    'providers',
    'logging',
    'tools',
    'config',
    'mcp',
    'transports',
    'storage',
    'runtime',
    'telemetry',
    'gateway',
    'probe',
    'acp',
  ],
  // transports: the wire types only (`transports/<api>/<api>-wire.ts`), checked below.
  emulators: ['core', 'transports'],
};
const FOLDERS = Object.keys(LAYERS);

/** Imports that leave the pure layers' reach: Node built-ins and I/O modules (STYLE.md rule 1). */
const IO_MODULES = ['node:*', 'fs', 'path', 'http', 'https', 'net', 'child_process'];

/** A relative import of `src/<folder>/…` from any depth under src/ (folder names are unique in src/). */
const folderImport = (folders) => `^(\\.\\./)+(${folders.join('|')})/`;

/** The `no-restricted-imports` and `no-restricted-syntax` settings of one folder. */
function layerRules(folder) {
  const forbidden = FOLDERS.filter((other) => other !== folder && !LAYERS[folder].includes(other));
  const ownFolder = folder === 'cli' ? forbidden.filter((other) => other !== 'emulators') : forbidden;
  const message = `src/${folder} may import only ${LAYERS[folder].join(', ') || 'nothing else in src'} (layers: eslint.config.js, docs/architecture.md)`;
  const patterns = [{ regex: folderImport(ownFolder), message }];
  if (folder === 'emulators') {
    patterns.push({
      regex: '^(\\.\\./)+transports/(?!.*-wire\\.js$)',
      message: 'emulators import only the transports\u2019 wire types (transports/<api>/<api>-wire.ts)',
    });
  }
  if (folder === 'cli') {
    patterns.push({
      regex: folderImport(['emulators']),
      allowTypeImports: true,
      message: 'load emulators with import() when an emulator is used, so other commands never load them',
    });
  }
  if (folder === 'core' || folder === 'replay')
    patterns.push({ group: IO_MODULES, message: 'core/ and replay/ are pure' });
  const dynamicallyForbidden = folder === 'cli' ? ownFolder : forbidden;
  return {
    'no-restricted-imports': ['error', { patterns }],
    'no-restricted-syntax': [
      'error',
      {
        selector: `ImportExpression[source.value=/${folderImport(dynamicallyForbidden).replaceAll('/', '\\/')}/]`,
        message,
      },
    ],
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...FOLDERS.map((folder) => ({ files: [`src/${folder}/**/*.ts`], rules: layerRules(folder) })),
  {
    // core/ and replay/ are pure: no I/O (STYLE.md rule 1).
    files: ['src/core/**/*.ts', 'src/replay/**/*.ts'],
    rules: { 'no-restricted-globals': ['error', 'fetch', 'process'] },
  },
  {
    // The `hermes-ts/replay` entry is pure like replay/ (docs/library.md); its whole module graph
    // is checked by test/library/replay-entry-purity.test.ts.
    files: ['src/replay-api.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: IO_MODULES, message: 'hermes-ts/replay is pure' }] }],
      'no-restricted-globals': ['error', 'fetch', 'process'],
    },
  },
  {
    files: ['**/*.mjs', 'scripts/**'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'URL', 'structuredClone', 'setTimeout', 'clearTimeout', 'Buffer', 'performance'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
  },
);
