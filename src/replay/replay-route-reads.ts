import type { RouteProfile } from './replay-route-profile.js';

/**
 * What reasoning a route gets back, in one answer per route: which earlier assistant turns carry
 * their reasoning to the provider, and in which wire fields. Read from the route profile (the
 * carrier table, the per-API policies), before learned verdicts, so it says what the route table
 * sends by design (SPEC §5, §7.4, §9.3, §10, §11, §12). `hermes model --json` lists it per known
 * route, and the continuity probe tells `not-read` from `lost` by it (SPEC §26.5).
 */

/**
 * Which earlier assistant turns get their reasoning back: `all` (every earlier turn), `loop` (only
 * the turns of the tool loop in flight, the model reads no earlier turn's thinking) or `none`.
 */
export type ReasoningScope = 'all' | 'loop' | 'none';

/** The answer of {@link routeReasoningReads}. */
export interface RouteReasoningReads {
  scope: ReasoningScope;
  /** The wire fields that carry reasoning back, in the order the route's encoder writes them. */
  carriers: string[];
  /** The must-echo family (SPEC §4): `reasoning_content` goes back on every turn, padded when empty. */
  mustEcho: string | null;
}

const NOTHING: RouteReasoningReads = { scope: 'none', carriers: [], mustEcho: null };

/** The reasoning `profile`'s route gets back by design (see {@link RouteReasoningReads}). */
export function routeReasoningReads(profile: RouteProfile): RouteReasoningReads {
  switch (profile.route.api) {
    case 'chat_completions':
      return chatReads(profile);
    case 'anthropic_messages': {
      const { thinkingScope, signedReplay } = profile.anthropic;
      if (thinkingScope === 'none') return NOTHING;
      // SPEC §9.3: signed routes get the signed blocks back; kimi and deepseek read the thinking text.
      const carriers = signedReplay ? ['thinking (signed)', 'redacted_thinking'] : ['thinking'];
      return { scope: thinkingScope, carriers, mustEcho: null };
    }
    case 'bedrock_converse': {
      const { replay } = profile.bedrock;
      if (replay === 'strip') return NOTHING;
      // SPEC §10: signed Claude blocks, or the readable reasoning as `<think>` text for unsigned models.
      const carriers =
        replay === 'signed' ? ['reasoningContent (signed)', 'redactedContent'] : ['reasoning as <think> text'];
      return { scope: 'all', carriers, mustEcho: null };
    }
    case 'gemini':
      // SPEC §11: Gemini reads no thought text back; the signatures carry its thinking.
      return { scope: 'all', carriers: ['thoughtSignature'], mustEcho: null };
    case 'codex_responses':
      // SPEC §12: reasoning items with their encrypted content, to the issuer that minted them.
      return { scope: 'all', carriers: ['reasoning.encrypted_content'], mustEcho: null };
  }
}

/** SPEC §5 row (with §23.4 user rows), §4 must-echo and the §7.4 record fields the route reads. */
function chatReads(profile: RouteProfile): RouteReasoningReads {
  const carriers: string[] = [...profile.chat.carriers];
  if (profile.mustEchoFamily !== null && !carriers.includes('reasoning_content')) {
    carriers.unshift('reasoning_content');
  }
  if (profile.chat.recordReads.copilot) carriers.push('reasoning_opaque', 'reasoning_text');
  if (profile.chat.consumesThoughtSignature) carriers.push('extra_content.google.thought_signature');
  return { scope: carriers.length > 0 ? 'all' : 'none', carriers, mustEcho: profile.mustEchoFamily };
}

/** One line for people: "every earlier turn: reasoning_content (must echo: deepseek)". */
export function describeReasoningReads(reads: RouteReasoningReads): string {
  if (reads.scope === 'none') return 'no earlier reasoning is sent back';
  const where = reads.scope === 'all' ? 'every earlier turn' : 'the tool loop in flight only';
  const echo = reads.mustEcho === null ? '' : ` (must echo: ${reads.mustEcho})`;
  return `${where}: ${reads.carriers.join(', ')}${echo}`;
}
