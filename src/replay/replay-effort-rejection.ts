import { REASONING_EFFORTS, type ReasoningEffort } from '../core/reasoning-options.js';

/**
 * What a 4xx refusing a reasoning effort teaches (pure). A provider that refuses the value sent
 * (`reasoning_effort`, `reasoning.effort`, `output_config.effort`, Gemini `thinkingLevel` /
 * `thinkingBudget`, a thinking off switch on a model that always thinks) is answered with the
 * levels the route refuses, in Hermes vocabulary, so the runtime can learn them per (provider,
 * host, model) like SPEC §13 and retry once with the nearest accepted level.
 *
 * The refusal texts it reads are in WIRE §6.1 (OpenAI's `Unsupported value: … Supported values
 * are: …`, an Anthropic-compatible `expected … but got …`, `… is not supported with this model`,
 * Gemini's `Thinking level MINIMAL is not supported …` and `Budget 0 is invalid. This model only
 * works in thinking mode.`, Kimi's `only type=enabled is allowed`).
 */

/** The values an effort vocabulary sends, per level (src/providers/provider-effort.ts). */
export type EffortValues = Readonly<Record<ReasoningEffort, string | number>>;

/** The word a vocabulary uses for its explicit off switch. */
const OFF = 'off';

/** The request names an effort control (and not a replayed carrier, which SPEC §13 handles). */
const EFFORT_CONTROL =
  /reasoning[_.]effort|output_config\.effort|\beffort\b|thinking[ _]?level|thinking[ _]?budget|budget_tokens|\bbudget \d+|only works in thinking mode|disabling thinking|invalid thinking|\blevel "/i;

/** Words of a refusal. */
const REFUSAL =
  /not supported|unsupported|not valid|invalid|not allowed|does not support|not enabled|is not available|unrecognized request argument|unknown parameter|only works|only type=/i;

/** The model always thinks: the off switch (or a zero budget) is what it refuses. */
const ALWAYS_THINKS =
  /only works in thinking mode|does not support disabling thinking|only type=enabled is allowed|thinking cannot be (?:turned off|disabled)|does not support setting thinking_budget to 0/i;

/** The parameter itself is refused, whatever its value. */
const PARAMETER_REFUSED =
  /is not supported (?:with|for|by) this model|is not enabled for this model|unrecognized request argument|unknown parameter|unsupported parameter/i;

/** Where a refusal lists the values it takes. */
const ACCEPTED_LIST =
  /(?:supported values are|valid (?:values|levels|options)(?: are)?|expected(?: one of)?|must be one of|should be(?: one of)?|accepted values(?: are)?|\buse)\b:?([^.\n]*)/i;

/** True when the text reads like a refused effort (cheap: the recovery row's classify). */
export function looksLikeEffortRejection(body: string): boolean {
  return EFFORT_CONTROL.test(body) && REFUSAL.test(body) && !/reasoning_content|reasoning_details/.test(body);
}

function wordIn(text: string, word: string): boolean {
  return new RegExp(`(?<![\\w-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'i').test(text);
}

/** The level words a refusal says it accepts, from its list clause ("…, but got X" cut off). */
function acceptedWords(body: string): string[] {
  const clause = ACCEPTED_LIST.exec(body)?.[1]?.split(/\bbut got\b|\bgot\b|\binstead\b/i)[0] ?? '';
  return REASONING_EFFORTS.filter((word) => wordIn(clause, word));
}

/** The levels that send the same value as `sent`. */
function levelsSending(values: EffortValues, value: string | number): ReasoningEffort[] {
  return REASONING_EFFORTS.filter((level) => values[level] === value);
}

/**
 * The levels a 4xx says the route refuses, given the level that was sent and the route's
 * vocabulary; empty when the text is not an effort refusal. In order: a list of accepted values
 * (every level whose word is not listed is refused), an always-thinking model refusing the off
 * switch, the sent value named as refused (with every level that sends the same value), and the
 * parameter refused altogether (every level: the retry sends no effort).
 */
export function effortRejection(body: string, sent: ReasoningEffort, values: EffortValues): ReasoningEffort[] {
  if (!looksLikeEffortRejection(body)) return [];
  const sentValue = values[sent];
  const accepted = acceptedWords(body);
  if (accepted.length > 0) {
    const refused = REASONING_EFFORTS.filter((level) => {
      const value = values[level];
      return typeof value === 'string' && value !== OFF && !accepted.includes(value as ReasoningEffort);
    });
    return typeof sentValue === 'string' && accepted.includes(sentValue as ReasoningEffort)
      ? refused
      : [...new Set([...refused, ...levelsSending(values, sentValue)])].sort(byLevel);
  }
  const sentIsOff = sentValue === OFF || sentValue === 0 || sentValue === 'none';
  if (ALWAYS_THINKS.test(body)) return sentIsOff ? levelsSending(values, sentValue) : [];
  if (sentValue !== OFF && wordIn(body, String(sentValue))) return levelsSending(values, sentValue);
  if (PARAMETER_REFUSED.test(body)) return [...REASONING_EFFORTS];
  return [];
}

function byLevel(left: ReasoningEffort, right: ReasoningEffort): number {
  return REASONING_EFFORTS.indexOf(left) - REASONING_EFFORTS.indexOf(right);
}

/**
 * The accepted level nearest to `requested` (ties go to the lower level: never more reasoning
 * than asked when less is as near), or undefined when every level is refused (send no effort).
 * `requested` itself when it is not refused.
 */
export function nearestAcceptedEffort(
  requested: ReasoningEffort,
  refused: readonly ReasoningEffort[],
): ReasoningEffort | undefined {
  if (!refused.includes(requested)) return requested;
  const at = REASONING_EFFORTS.indexOf(requested);
  for (let distance = 1; distance < REASONING_EFFORTS.length; distance++) {
    for (const index of [at - distance, at + distance]) {
      const level = REASONING_EFFORTS[index];
      if (level !== undefined && !refused.includes(level)) return level;
    }
  }
  return undefined;
}
