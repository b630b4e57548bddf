/**
 * `hermes-ts/ai-sdk`: an AI SDK provider (docs/library.md). `createHermes({ provider, model })`
 * returns a language model (specification v4, for `ai@7`) whose requests go through Hermes's
 * transports and replay engine, and whose reasoning parts carry every reasoning carrier with its
 * origin in `providerMetadata.hermes`: an app that sends `response.messages` (or UI messages)
 * back gets exact per-route replay, origin scoping and learned verdicts. `ai` and
 * `@ai-sdk/provider` are optional peer dependencies; the AI SDK needs Node 22 or newer.
 */
import { HermesLanguageModel, type HermesModelSettings } from './ai-sdk/ai-sdk-model.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
if (NODE_MAJOR < 22) {
  throw new Error(
    `hermes-ts/ai-sdk needs Node.js 22 or newer (ai@7 requires it); this is Node.js ${process.versions.node}. ` +
      'hermes-ts and hermes-ts/replay run on Node 20.',
  );
}

export type { HermesModelSettings } from './ai-sdk/ai-sdk-model.js';
export { HermesLanguageModel } from './ai-sdk/ai-sdk-model.js';
export { HERMES_METADATA_KEY, HERMES_METADATA_VERSION } from './ai-sdk/ai-sdk-carriers.js';

/**
 * An AI SDK language model on a Hermes route: `generateText({ model: createHermes({ provider:
 * 'deepseek', model: 'deepseek-v4-flash' }), … })`. The route is resolved now (an unknown
 * provider without `baseUrl` is a `UsageError`); nothing is sent until the first call.
 */
export function createHermes(settings: HermesModelSettings): HermesLanguageModel {
  return new HermesLanguageModel(settings);
}
