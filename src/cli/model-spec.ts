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
