/**
 * The emulated model's reasoning effort rules, shared by every emulator: which effort words it
 * takes and whether it always thinks. A request outside them gets the 400 its provider family
 * answers, in that family's words (the texts of WIRE §6.1),
 * so a client's learning of refused efforts can be proven over real HTTP.
 */

/** Options every emulator takes for its model's effort rules. */
export interface EmulatedEffortRules {
  /** Effort words the model takes; any other value sent is refused. Absent: every value. */
  acceptEfforts?: readonly string[] | undefined;
  /** The model always thinks: an off switch (thinking disabled, effort `none`, a zero budget) is refused. */
  alwaysThinks?: boolean | undefined;
}

/** The effort a request carries, as its wire shows it. */
export interface SentEffort {
  /** The request field, as the family's errors name it (`reasoning_effort`, `output_config.effort`, …). */
  parameter: string;
  /** The word sent, when the request carries one. */
  value?: string | undefined;
  /** The request turns thinking off. */
  off: boolean;
}

/** Why the model refuses a request's effort. */
export type EffortRefusal =
  { kind: 'value'; parameter: string; value: string; accepted: readonly string[] } | { kind: 'off'; parameter: string };

/** The refusal the rules give `sent`, or null when the model takes it. */
export function effortRefusal(rules: EmulatedEffortRules, sent: SentEffort): EffortRefusal | null {
  if (rules.alwaysThinks === true && sent.off) return { kind: 'off', parameter: sent.parameter };
  const accepted = rules.acceptEfforts;
  if (accepted === undefined || sent.value === undefined || accepted.includes(sent.value)) return null;
  return { kind: 'value', parameter: sent.parameter, value: sent.value, accepted };
}

/** The effort of a Responses body: `reasoning.effort`; thinking off with the word `none`. */
export function responsesSentEffort(body: Readonly<Record<string, unknown>>): SentEffort {
  const reasoning = body['reasoning'];
  const effort =
    typeof reasoning === 'object' && reasoning !== null ? (reasoning as Record<string, unknown>)['effort'] : undefined;
  const value = typeof effort === 'string' ? effort : undefined;
  return { parameter: 'reasoning.effort', value, off: value === 'none' };
}

/** `'a', 'b', and 'c'` as OpenAI lists values. */
function openAiList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  if (quoted.length <= 2) return quoted.join(' and ');
  return `${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)}`;
}

/**
 * OpenAI's wording (chat `reasoning_effort`, Responses `reasoning.effort`; WIRE §6.1):
 * `Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: …`.
 */
export function openAiEffortMessage(refusal: Extract<EffortRefusal, { kind: 'value' }>): string {
  return (
    `Unsupported value: '${refusal.parameter}' does not support '${refusal.value}' with this model. ` +
    `Supported values are: ${openAiList(refusal.accepted)}.`
  );
}

/**
 * An Anthropic-compatible host's wording (WIRE §6.1): ``The parameter `output_config.effort`
 * specified in the request are not valid: expected `low`, `medium`, `high` or `max`, but got `xhigh` instead.``
 */
export function anthropicEffortMessage(refusal: Extract<EffortRefusal, { kind: 'value' }>): string {
  const quoted = refusal.accepted.map((value) => `\`${value}\``);
  const list = quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return (
    `The parameter \`${refusal.parameter}\` specified in the request are not valid: ` +
    `expected ${list}, but got \`${refusal.value}\` instead.`
  );
}

/** Gemini's wording for a thinking level the model does not take (WIRE §6.1). */
export function geminiLevelMessage(refusal: Extract<EffortRefusal, { kind: 'value' }>): string {
  return `Thinking level ${refusal.value.toUpperCase()} is not supported for this model.`;
}

/** Gemini 2.5 Pro refusing a zero thinking budget (WIRE §6.1). */
export const GEMINI_ALWAYS_THINKS_MESSAGE = 'Budget 0 is invalid. This model only works in thinking mode.';

/** Kimi K2.7 Code refusing `thinking: {type: "disabled"}` (WIRE §6.1). */
export const KIMI_ALWAYS_THINKS_MESSAGE = 'invalid thinking: only type=enabled is allowed for this model';

/** A host refusing to turn thinking off (Volcengine, WIRE §6.1); used for the Anthropic and Responses families. */
export const DISABLING_THINKING_REFUSED_MESSAGE = 'The current model does not support disabling thinking';
