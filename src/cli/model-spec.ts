import { UsageError } from '../core/errors.js';
import { getProvider, PROVIDERS } from '../providers/provider-registry.js';
import { EMULATOR_PREFIX } from '../runtime/runtime-route.js';

/** A `provider:model` choice; `model` undefined means the provider's default model. */
export interface ModelChoice {
  provider: string;
  model: string | undefined;
}

/**
 * Parses `provider:model`, `provider` or `emulator:PERSONA[:model]`. The provider id ends at the
 * first `:` (model ids may hold more, e.g. `gpt-oss:20b`). An unknown provider is a usage error
 * naming the known ids.
 */
export function parseModelChoice(text: string): ModelChoice {
  const value = text.trim();
  if (value.startsWith(EMULATOR_PREFIX)) {
    const rest = value.slice(EMULATOR_PREFIX.length);
    const colon = rest.indexOf(':');
    const persona = colon < 0 ? rest : rest.slice(0, colon);
    if (!persona) throw new UsageError(`"${text}" names no emulator persona (e.g. emulator:deepseek)`);
    const model = colon < 0 ? undefined : rest.slice(colon + 1) || undefined;
    return { provider: EMULATOR_PREFIX + persona, model };
  }
  const colon = value.indexOf(':');
  const provider = (colon < 0 ? value : value.slice(0, colon)).toLowerCase();
  const model = colon < 0 ? undefined : value.slice(colon + 1).trim() || undefined;
  const info = getProvider(provider);
  if (!info) {
    throw new UsageError(
      `unknown provider "${provider}" (known: ${PROVIDERS.map((entry) => entry.id).join(', ')}; see hermes model)`,
    );
  }
  if (model === undefined && info.defaultModel === undefined) {
    throw new UsageError(`provider "${provider}" has no default model: give one as ${provider}:MODEL`);
  }
  return { provider, model };
}

/**
 * `config set provider VALUE`: the value must name a provider Hermes knows, an emulator persona
 * (`emulator:deepseek`), or, when the config also has a `base_url`, any id (an OpenAI-compatible
 * server the table does not know, as `--provider ID --base-url URL` is). Anything else is a usage
 * error naming the known ids, before the file is written.
 */
export async function checkConfiguredProvider(value: unknown, hasBaseUrl: boolean): Promise<void> {
  if (typeof value !== 'string') return; // the schema says what is wrong with a non-string
  const id = value.trim();
  if (id.startsWith(EMULATOR_PREFIX)) {
    const { emulatorPersonaRoute } = await import('./cli-emulator-route.js');
    emulatorPersonaRoute(id.slice(EMULATOR_PREFIX.length));
    return;
  }
  if (getProvider(id) || hasBaseUrl) return;
  throw new UsageError(
    `unknown provider "${id}" (known: ${PROVIDERS.map((entry) => entry.id).join(', ')}; see hermes model); ` +
      'for an OpenAI-compatible server the list does not know, set base_url first',
  );
}
