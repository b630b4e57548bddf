import type { WireApi } from '../core/origin.js';
import type { RouteProfile } from './replay-route-profile.js';

/**
 * The head of every explanation of a request (SPEC §23.3: `--explain`, the gateway inspector):
 * which route it was built for, which row of the route tables decided what travels, and whether
 * the route must get `reasoning_content` back on every assistant turn (SPEC §4). Read before the
 * per-message decisions, it says why a carrier the route does not read is left out by design.
 */

/** The facts the header names, as data (the inspector's JSON carries them). */
export interface RouteSummary {
  /** `provider|host|model` (SPEC §3.3). */
  routeKey: string;
  api: WireApi;
  /** The row of the table that decided, in words: `fallback (reads reasoning_content)`. */
  table: string;
  /** The must-echo family (SPEC §4), or null when the route need not echo. */
  mustEcho: string | null;
}

/** The summary of a resolved route profile. */
export function summarizeRoute(profile: RouteProfile): RouteSummary {
  return {
    routeKey: profile.routeKey,
    api: profile.route.api,
    table: tableRow(profile),
    mustEcho: profile.mustEchoFamily,
  };
}

/**
 * The header line: `route deepseek|api.deepseek.com|deepseek-v4-flash · chat_completions · table
 * row: fallback (reads reasoning_content) · must echo: yes (deepseek)`.
 */
export function describeRouteSummary(summary: RouteSummary): string {
  const echo =
    summary.mustEcho === null
      ? 'no'
      : `yes (${summary.mustEcho}: reasoning_content on every assistant turn, " " when it has none)`;
  return `route ${summary.routeKey} · ${summary.api} · table row: ${summary.table} · must echo: ${echo}`;
}

/** The row of the route's wire API that decided: the carrier table, or the native API's policy row. */
function tableRow(profile: RouteProfile): string {
  switch (profile.route.api) {
    case 'chat_completions': {
      const { row, carriers } = profile.chat;
      return `${row} (reads ${carriers.length > 0 ? carriers.join(', ') : 'no reasoning carrier'})`;
    }
    case 'anthropic_messages': {
      const { treatment, signedReplay, thinkingScope } = profile.anthropic;
      const turns = thinkingScope === 'all' ? 'every turn' : thinkingScope === 'loop' ? 'the tool loop' : 'no turn';
      return `anthropic ${treatment} (${signedReplay ? 'signed' : 'unsigned'} thinking, kept for ${turns})`;
    }
    case 'bedrock_converse':
      return `bedrock ${profile.bedrock.family} (${profile.bedrock.replay} reasoning)`;
    case 'gemini':
      return `gemini ${profile.gemini.issuer} (thought signatures go back to their issuer)`;
    case 'codex_responses':
      return `responses ${profile.responses.issuerKind} (encrypted reasoning goes back to its issuer)`;
  }
}
