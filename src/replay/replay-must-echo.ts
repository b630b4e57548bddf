import { hostnameMatches, hostnameOf } from './replay-host.js';
import { modelMentions } from './replay-model-ids.js';
import { matchRouteOverride } from './replay-route-override.js';
import type { RouteOverride } from './replay-types.js';

/**
 * The must-echo tier (SPEC §4): providers that reject (or degrade) a tool-calling assistant turn
 * that does not carry `reasoning_content`. Moonshot answers
 * "thinking is enabled but reasoning_content is missing in assistant tool call message at index 2";
 * DeepSeek answers "The `reasoning_content` in the thinking mode must be passed back to the API."
 * (WIRE.md §1.2–§1.3). Such turns are padded with {@link REASONING_ECHO_PAD}.
 */

/** The padding value: exactly one space (SPEC §4). Moonshot rejects a missing field, not a blank one. */
export const REASONING_ECHO_PAD = ' ';

/** One row of the must-echo table. */
export interface MustEchoFamily {
  /** Family name reported by {@link mustEchoFamily}. */
  name: string;
  /** Provider ids compared case-sensitively (SPEC §4 row 1: `KIMI-CODING` does not match). */
  exactProviders: readonly string[];
  /** Provider ids compared after trimming and lower-casing. */
  providers: readonly string[];
  /** Case-insensitive substrings of the model id. */
  modelSubstrings: readonly string[];
  /** Hosts matched by the SPEC §3.1 suffix rule. */
  hosts: readonly string[];
}

/** SPEC §4, in table order: the first matching family is the one reported. */
export const MUST_ECHO_FAMILIES: readonly MustEchoFamily[] = [
  // No model substring for Kimi on purpose: a Kimi model on OpenRouter is not must-echo.
  {
    name: 'kimi',
    exactProviders: ['kimi-coding', 'kimi-coding-cn'],
    providers: [],
    modelSubstrings: [],
    hosts: ['api.kimi.com', 'moonshot.ai', 'moonshot.cn'],
  },
  {
    name: 'deepseek',
    exactProviders: [],
    providers: ['deepseek'],
    modelSubstrings: ['deepseek'],
    hosts: ['api.deepseek.com'],
  },
  {
    name: 'mimo',
    exactProviders: [],
    providers: ['xiaomi'],
    modelSubstrings: ['mimo'],
    hosts: ['api.xiaomimimo.com', 'xiaomimimo.com'],
  },
  // Nous Portal stealth model (prior-art commit f86276d2ebc).
  { name: 'missingno', exactProviders: [], providers: [], modelSubstrings: ['stealth/missingno'], hosts: [] },
];

/** Options shared by the must-echo queries. */
export interface MustEchoOptions {
  /** User route rows (SPEC §23.4); the first matching row with `mustEcho` set decides. */
  overrides?: readonly RouteOverride[] | undefined;
}

/** The family name reported for a user route row that declares `mustEcho: true`. */
export const OVERRIDE_FAMILY = 'override';

/**
 * The first must-echo family the route matches (provider id OR model substring OR host), or
 * null. A matching user route row with `mustEcho` set takes precedence (`true` reports
 * {@link OVERRIDE_FAMILY}, `false` reports null).
 */
export function mustEchoFamily(
  provider: string,
  model: string,
  baseUrl: string | undefined,
  options: MustEchoOptions = {},
): string | null {
  const override = matchRouteOverride(options.overrides, provider, baseUrl);
  if (override?.mustEcho !== undefined) return override.mustEcho ? OVERRIDE_FAMILY : null;
  const exactProvider = provider.trim();
  const providerId = exactProvider.toLowerCase();
  const host = hostnameOf(baseUrl);
  for (const family of MUST_ECHO_FAMILIES) {
    if (family.exactProviders.includes(exactProvider)) return family.name;
    if (family.providers.includes(providerId)) return family.name;
    if (modelMentions(model, family.modelSubstrings)) return family.name;
    if (family.hosts.some((domain) => hostnameMatches(host, domain))) return family.name;
  }
  return null;
}

/** True when the route is in the must-echo tier (SPEC §4). */
export function isMustEcho(
  provider: string,
  model: string,
  baseUrl: string | undefined,
  options: MustEchoOptions = {},
): boolean {
  return mustEchoFamily(provider, model, baseUrl, options) !== null;
}

/** The table row of a family. Throws on an unknown name (the prior art raises KeyError; SPEC §4). */
export function familyRule(name: string): MustEchoFamily {
  const family = MUST_ECHO_FAMILIES.find((row) => row.name === name);
  if (!family) {
    throw new Error(
      `unknown must-echo family "${name}" (known: ${MUST_ECHO_FAMILIES.map((row) => row.name).join(', ')})`,
    );
  }
  return family;
}
