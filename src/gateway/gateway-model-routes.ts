import type { Logger } from '../logging/logger.js';
import type { GatewayModelAlias, GatewayRoute } from './gateway-types.js';

/**
 * Which configured route a front-door request goes to, from the `model` the client names
 * (docs/gateway.md "Choosing the route by model name"), first match wins:
 *
 * 1. a `gateway.models` alias of config.yaml: the exact name, or a name ending in `*` matching
 *    by prefix (`claude-haiku-*`; Claude Code sends `claude-…` names whatever the model behind);
 * 2. `PROVIDER:MODEL` where PROVIDER is the provider of the gateway's route or of an alias
 *    route: that route with MODEL (its base URL, key and connection reused). Other providers
 *    are never reached this way: a client cannot make the gateway spend a key it was not
 *    configured to use;
 * 3. the gateway's own model id: the gateway's route;
 * 4. anything else: the gateway's route, said once per name in the log (a proxy is expected
 *    to serve whatever model name its client is configured with).
 */

/** How a request's route was chosen (logged with the request). */
export type RouteChoice = 'alias' | 'provider' | 'default' | 'fallback';

/** Resolves model names to routes; each resolved name keeps its route object (profiles are cached per route). */
export class GatewayModelRoutes {
  private readonly resolved = new Map<string, { route: GatewayRoute; choice: RouteChoice }>();

  constructor(
    private readonly fallback: GatewayRoute,
    private readonly aliases: readonly GatewayModelAlias[],
    private readonly logger: Logger,
  ) {}

  /** The route for `model` (absent or empty: the gateway's route). */
  choose(model: string | undefined): { route: GatewayRoute; choice: RouteChoice } {
    const name = model?.trim() ?? '';
    if (name === '') return { route: this.fallback, choice: 'default' };
    const known = this.resolved.get(name);
    if (known) return known;
    const chosen = this.resolve(name);
    // Bounded: a client sending endless distinct names gets the fallback without growing the map.
    if (this.resolved.size < 1024) this.resolved.set(name, chosen);
    if (chosen.choice === 'fallback') {
      this.logger.info(
        { model: name, route: `${this.fallback.route.provider} ${this.fallback.route.model}` },
        `model "${name}" is not a configured route (gateway.models); using the gateway's route ${this.fallback.route.provider} ${this.fallback.route.model}`,
      );
    }
    return chosen;
  }

  /** Every configured route: the gateway's own, then each alias's. */
  configured(): GatewayRoute[] {
    return [this.fallback, ...this.aliases.map((alias) => alias.route)];
  }

  /** The model ids a client may name (`GET /v1/models`): the gateway's own and each exact alias. */
  names(): string[] {
    const exact = this.aliases.map((alias) => alias.name).filter((name) => !name.endsWith('*'));
    return [...new Set([this.fallback.route.model, ...exact])];
  }

  private resolve(name: string): { route: GatewayRoute; choice: RouteChoice } {
    const exact = this.aliases.find((alias) => alias.name === name);
    if (exact) return { route: exact.route, choice: 'alias' };
    const prefixed = this.aliases.find((alias) => alias.name.endsWith('*') && name.startsWith(alias.name.slice(0, -1)));
    if (prefixed) return { route: prefixed.route, choice: 'alias' };
    const colon = name.indexOf(':');
    if (colon > 0 && colon < name.length - 1) {
      const provider = name.slice(0, colon);
      const model = name.slice(colon + 1);
      const base = [this.fallback, ...this.aliases.map((alias) => alias.route)].find(
        (candidate) => candidate.route.provider === provider,
      );
      if (base) return { route: { ...base, route: { ...base.route, model } }, choice: 'provider' };
    }
    if (name === this.fallback.route.model) return { route: this.fallback, choice: 'default' };
    return { route: this.fallback, choice: 'fallback' };
  }
}
