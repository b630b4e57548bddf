import { hostnameMatches, hostnameOf } from './replay-host.js';
import type { RouteOverride } from './replay-types.js';

/**
 * SPEC §23.4: user route rows from `config.yaml` are matched before the built-in tables. A row
 * matches when the lower-cased, trimmed provider id is listed (compared lower-cased) or the base
 * URL host matches one of its hosts by the SPEC §3.1 suffix rule. First match wins.
 */
export function matchRouteOverride(
  overrides: readonly RouteOverride[] | undefined,
  provider: string,
  baseUrl: string | undefined,
): RouteOverride | undefined {
  if (!overrides || overrides.length === 0) return undefined;
  const providerId = provider.trim().toLowerCase();
  const host = hostnameOf(baseUrl);
  for (const override of overrides) {
    if (override.providers?.some((id) => id.trim().toLowerCase() === providerId)) return override;
    if (override.hosts?.some((domain) => hostnameMatches(host, domain.trim().toLowerCase()))) return override;
  }
  return undefined;
}
