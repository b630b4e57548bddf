import type { RouteReasoningReads } from '../replay/replay-route-reads.js';
import type { SecretAnswer } from './probe-prompts.js';
import { PROBE_SCENARIOS, type ProbeScenario, type ProbeVerdict, type ScenarioReport } from './probe-types.js';

/**
 * Judging the probe's answers (SPEC §26.5). With readable reasoning the pick's `SECRET=NNN` is
 * the reference; without it, the scenarios' answers are compared with each other. A scenario
 * whose answer lacks the number is `not-read` when the built-in route table sends the route no
 * earlier turn's reasoning by design, and `lost` otherwise: the route was meant to get it back
 * (a user route row that sends nothing where the built-in row sends something is a loss too,
 * and the detail says so).
 */

/** What one scenario produced: the answer's reading, or the error that stopped it. */
export type ScenarioOutcome = { answer: SecretAnswer } | { error: string };

/** Everything the judgement reads. */
export interface JudgementInput {
  /** The number in the pick's readable reasoning, when the route showed it. */
  reference: string | undefined;
  outcomes: Readonly<Record<ProbeScenario, ScenarioOutcome>>;
  /** What the route gets back under the user's route rows. */
  reads: RouteReasoningReads;
  /** What the built-in route table sends it. */
  builtIn: RouteReasoningReads;
}

/** One report per scenario, in {@link PROBE_SCENARIOS} order. */
export function judgeScenarios(input: JudgementInput): ScenarioReport[] {
  const consensus = consensusOf(input);
  return PROBE_SCENARIOS.map((name) => {
    const outcome = input.outcomes[name];
    if ('error' in outcome) return { name, verdict: 'error', detail: outcome.error };
    return { name, ...judgeAnswer(outcome.answer, input, consensus) };
  });
}

/** The overall verdict: `error` over `lost` over `kept` over `not-read`. */
export function overallVerdict(scenarios: readonly ScenarioReport[]): ProbeVerdict {
  for (const verdict of ['error', 'lost', 'kept'] as const) {
    if (scenarios.some((scenario) => scenario.verdict === verdict)) return verdict;
  }
  return 'not-read';
}

/** Without a reference, what the scenarios' numbers say together. */
type Consensus =
  | { kind: 'reference' }
  | { kind: 'none' }
  | { kind: 'lone'; value: string }
  | { kind: 'agreed'; value: string; count: number }
  | { kind: 'split' };

function judgeAnswer(
  answer: SecretAnswer,
  input: JudgementInput,
  consensus: Consensus,
): { verdict: ProbeVerdict; detail: string } {
  const said = answer.kind === 'number' ? `SECRET=${answer.value}` : answer.kind === 'unknown' ? 'SECRET=unknown' : '';
  if (answer.kind === 'number') {
    if (input.reference !== undefined) {
      return answer.value === input.reference
        ? { verdict: 'kept', detail: `answered ${said}, the number in the pick's reasoning` }
        : { verdict: 'lost', detail: `answered ${said}; the pick's reasoning held SECRET=${input.reference}` };
    }
    if (consensus.kind === 'agreed' && consensus.value === answer.value) {
      const others = consensus.count - 1;
      return {
        verdict: 'kept',
        detail: `answered ${said}, as ${others} other scenario${others === 1 ? '' : 's'} did (the route shows no readable reasoning)`,
      };
    }
    if (consensus.kind === 'lone') {
      return {
        verdict: 'kept',
        detail: `answered ${said}; the route shows no readable reasoning and no other scenario named a number`,
      };
    }
    return {
      verdict: 'lost',
      detail: `answered ${said}, unlike the other scenarios (the route shows no readable reasoning)`,
    };
  }
  const answered = said === '' ? 'named no number' : `answered ${said}`;
  if (input.builtIn.scope !== 'all') {
    return { verdict: 'not-read', detail: `${answered}: by design ${sentBack(input.builtIn)}` };
  }
  if (input.reads.scope !== 'all') {
    return {
      verdict: 'lost',
      detail: `${answered}: under a config.yaml route row ${sentBack(input.reads)}, where the built-in table sends ${input.builtIn.carriers.join(', ')}`,
    };
  }
  return { verdict: 'lost', detail: `${answered} although ${sentBack(input.reads)}` };
}

/** What goes back to the route, as a clause: "every earlier turn's reasoning goes back (reasoning_content)". */
function sentBack(reads: RouteReasoningReads): string {
  if (reads.scope === 'none') return 'no earlier reasoning goes back to this route';
  const carriers = `(${reads.carriers.join(', ')})`;
  return reads.scope === 'loop'
    ? `only the tool loop in flight gets its reasoning back ${carriers}, no earlier turn`
    : `every earlier turn's reasoning goes back ${carriers}`;
}

/** What the scenarios' numbers say together, when there is no reference. */
function consensusOf(input: JudgementInput): Consensus {
  if (input.reference !== undefined) return { kind: 'reference' };
  const counts = new Map<string, number>();
  for (const outcome of Object.values(input.outcomes)) {
    if ('answer' in outcome && outcome.answer.kind === 'number') {
      counts.set(outcome.answer.value, (counts.get(outcome.answer.value) ?? 0) + 1);
    }
  }
  const numbers = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  const [best, second] = numbers;
  if (best === undefined) return { kind: 'none' };
  if (best[1] === 1) return numbers.length === 1 ? { kind: 'lone', value: best[0] } : { kind: 'split' };
  return second !== undefined && second[1] === best[1]
    ? { kind: 'split' }
    : { kind: 'agreed', value: best[0], count: best[1] };
}
