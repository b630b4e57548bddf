import { describe, expect, it } from 'vitest';
import type { Route } from '../../src/core/route.js';
import { turnRouteProfile } from '../../src/runtime/runtime-turn-options.js';

describe('turnRouteProfile', () => {
  it('reuses the profile of an unchanged route and resolves again when anything it reads changes', () => {
    const route: Route = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' };
    const overrides: never[] = [];
    const first = turnRouteProfile({ route, routeOverrides: overrides });
    expect(turnRouteProfile({ route, routeOverrides: overrides })).toBe(first);
    route.model = 'deepseek-v4-pro';
    const renamed = turnRouteProfile({ route, routeOverrides: overrides });
    expect(renamed.routeKey).toBe('deepseek|api.deepseek.com|deepseek-v4-pro');
    expect(first.routeKey).toBe('deepseek|api.deepseek.com|deepseek-v4-flash');
    route.baseUrl = 'http://127.0.0.1:9/v1';
    expect(turnRouteProfile({ route, routeOverrides: overrides }).routeKey).toBe('deepseek|127.0.0.1|deepseek-v4-pro');
    const moved = turnRouteProfile({ route, routeOverrides: overrides });
    expect(turnRouteProfile({ route, routeOverrides: [] })).not.toBe(moved);
    expect(turnRouteProfile({ route, routeOverrides: overrides, echoOptIn: true })).not.toBe(moved);
  });
});
