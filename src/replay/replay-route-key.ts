import type { RouteKey } from './replay-types.js';
import { hostnameOf } from './replay-host.js';

/**
 * SPEC §3.3: the verdict route key. Provider is trimmed and lower-cased, host is the base URL's
 * hostname (or ""), model is trimmed but keeps its case.
 */
export function routeKeyOf(provider: string, baseUrl: string | undefined, model: string): RouteKey {
  return { provider: provider.trim().toLowerCase(), host: hostnameOf(baseUrl), model: model.trim() };
}

/** The string form `provider|host|model` used in logs, config and the store-wide verdict table. */
export function routeKeyString(key: RouteKey): string {
  return `${key.provider}|${key.host}|${key.model}`;
}

/**
 * Parses `provider|host|model` back into a key, or null when it has fewer than three parts.
 * Everything after the second `|` is the model, so a model id containing `|` survives.
 */
export function parseRouteKey(text: string): RouteKey | null {
  const first = text.indexOf('|');
  if (first < 0) return null;
  const second = text.indexOf('|', first + 1);
  if (second < 0) return null;
  const provider = text.slice(0, first).trim().toLowerCase();
  if (provider === '') return null;
  return {
    provider,
    host: text
      .slice(first + 1, second)
      .trim()
      .toLowerCase(),
    model: text.slice(second + 1).trim(),
  };
}
