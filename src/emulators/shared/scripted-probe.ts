import { randomInt } from 'node:crypto';

/**
 * How the scripted model plays the hidden-number probe of `hermes doctor --probe continuity`
 * (SPEC §26.5), honestly: asked to choose a secret number, it draws one at random and writes it
 * only in its reasoning (`SECRET=NNN`), never in the visible answer. Asked for it later, it
 * recalls it only from the reasoning that came back to it on the request: each emulator decodes
 * an earlier turn's reasoning from what the provider it stands for reads back (readable fields,
 * or the signed and sealed blobs it issued itself), so a number whose reasoning was dropped,
 * blanked or not read is a number the emulator no longer knows. The number is not derived from
 * anything in the conversation, so nothing but the reasoning can bring it back.
 *
 * The emulator recognises the probe by its own reading of the words (it stands for a model, not
 * for Hermes): "continuity probe" with "choose a secret number" (pick), "what is the secret
 * number" (ask) or "call the tool probe_wait" (ask after a tool call).
 */

const PROBE = /\bcontinuity probe\b/i;
const PICK = /\bchoose a secret (?:whole )?number\b/i;
const ASK = /\bwhat is the secret number\b/i;
const WAIT_FIRST = /\bcall the tool (probe_wait)\b/i;
const SECRET_IN_REASONING = /\bSECRET=(\d+)\b/g;

/** The smallest and largest secret the pick chooses (three digits, as the probe asks). */
const SECRET_RANGE = [100, 999] as const;

/** One message as the probe reads it (the scripted model's `ScriptMessage` fits). */
interface ProbeMessage {
  role: string;
  reasoning?: string | undefined;
}

/** What the probe answers (the scripted model's `ScriptOutput`). */
export interface ProbeOutput {
  reasoning: string;
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
}

/** What {@link runProbeScript} needs besides the conversation. */
export interface ProbeScriptContext {
  /** The question: the last user message that is not a client note. */
  question: string;
  /** The last message that is not a client note (a tool result continues a tool loop). */
  last: ProbeMessage | undefined;
  /** Tool names offered in the request. */
  tools: readonly string[];
  /** Number of this turn (assistant turns so far plus one), as the other answers count. */
  turn: number;
  /** The continuity sentence every answer ends with. */
  continuity: string;
  /** Seals a reasoning text with the continuity nonce (`sealReasoning`). */
  seal: (text: string) => string;
}

/** The probe's answer to the conversation, or null when the question is not part of the probe. */
export function runProbeScript(messages: readonly ProbeMessage[], context: ProbeScriptContext): ProbeOutput | null {
  const { question, turn, continuity, seal } = context;
  if (!PROBE.test(question)) return null;
  if (PICK.test(question)) {
    const secret = randomInt(SECRET_RANGE[0], SECRET_RANGE[1] + 1);
    return {
      reasoning: seal(`Turn ${turn}: I keep a secret number to myself. SECRET=${secret}. It stays out of my answer.`),
      content: `I have chosen a secret number and kept it to myself.\n${continuity}`,
      toolCalls: [],
    };
  }
  if (!ASK.test(question) && !WAIT_FIRST.test(question)) return null;
  const secret = recalledSecret(messages);
  const wait = WAIT_FIRST.exec(question);
  if (wait && context.last?.role !== 'tool' && context.tools.includes('probe_wait')) {
    const holding =
      secret === null ? 'I cannot see a secret number in my earlier reasoning' : `I hold SECRET=${secret}`;
    return {
      reasoning: seal(`Turn ${turn}: ${holding}; first I call probe_wait as asked.`),
      content: '',
      toolCalls: [{ id: `call_${turn}_1`, name: 'probe_wait', arguments: '{}' }],
    };
  }
  const found =
    secret === null ? 'no earlier reasoning of mine holds a secret number' : `my reasoning says SECRET=${secret}`;
  return {
    reasoning: seal(`Turn ${turn}: asked for the secret number; ${found}.`),
    content: `SECRET=${secret ?? 'unknown'}\n${continuity}`,
    toolCalls: [],
  };
}

/** The number in the newest reasoning that came back holding one, or null. */
function recalledSecret(messages: readonly ProbeMessage[]): string | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'assistant' || !message.reasoning) continue;
    const numbers = [...message.reasoning.matchAll(SECRET_IN_REASONING)].map((match) => match[1] ?? '');
    const newest = numbers[numbers.length - 1];
    if (newest) return newest;
  }
  return null;
}
