import { describe, expect, it } from 'vitest';
import { estimateProbeCost, PROBE_REQUESTS } from '../../src/probe/probe-cost.js';
import { answerRevealsSecret, secretInAnswer, secretInReasoning } from '../../src/probe/probe-prompts.js';
import type { ProbeScenario } from '../../src/probe/probe-types.js';
import { judgeScenarios, overallVerdict, type ScenarioOutcome } from '../../src/probe/probe-verdicts.js';
import type { RouteReasoningReads } from '../../src/replay/replay-route-reads.js';

/** SPEC §26.5: how the probe's answers become verdicts. */

const ALL: RouteReasoningReads = { scope: 'all', carriers: ['reasoning_content'], mustEcho: null };
const NONE: RouteReasoningReads = { scope: 'none', carriers: [], mustEcho: null };
const LOOP: RouteReasoningReads = { scope: 'loop', carriers: ['thinking (signed)'], mustEcho: null };

const number = (value: string): ScenarioOutcome => ({ answer: { kind: 'number', value } });
const unknown: ScenarioOutcome = { answer: { kind: 'unknown' } };

function outcomes(
  values: Partial<Record<ProbeScenario, ScenarioOutcome>>,
  fill: ScenarioOutcome,
): Record<ProbeScenario, ScenarioOutcome> {
  return { 'tool-loop': fill, resume: fill, compaction: fill, branch: fill, ...values };
}

function verdicts(reports: ReturnType<typeof judgeScenarios>): string[] {
  return reports.map((report) => report.verdict);
}

describe('continuity probe verdicts', () => {
  it('with readable reasoning, the pick is the reference: kept, lost, error', () => {
    const reports = judgeScenarios({
      reference: '417',
      outcomes: outcomes(
        { resume: number('123'), compaction: unknown, branch: { error: 'HTTP 400: bad' } },
        number('417'),
      ),
      reads: ALL,
      builtIn: ALL,
    });
    expect(verdicts(reports)).toEqual(['kept', 'lost', 'lost', 'error']);
    expect(reports[1]?.detail).toBe("answered SECRET=123; the pick's reasoning held SECRET=417");
    expect(reports[2]?.detail).toBe(
      "answered SECRET=unknown although every earlier turn's reasoning goes back (reasoning_content)",
    );
    expect(reports[3]?.detail).toBe('HTTP 400: bad');
    expect(overallVerdict(reports)).toBe('error');
  });

  it('without readable reasoning, the scenarios are compared with each other', () => {
    const agreed = judgeScenarios({
      reference: undefined,
      outcomes: outcomes({ branch: number('9') }, number('512')),
      reads: ALL,
      builtIn: ALL,
    });
    expect(verdicts(agreed)).toEqual(['kept', 'kept', 'kept', 'lost']);
    expect(agreed[0]?.detail).toBe(
      'answered SECRET=512, as 2 other scenarios did (the route shows no readable reasoning)',
    );
    const lone = judgeScenarios({
      reference: undefined,
      outcomes: outcomes({ resume: number('512') }, unknown),
      reads: ALL,
      builtIn: ALL,
    });
    expect(verdicts(lone)).toEqual(['lost', 'kept', 'lost', 'lost']);
    const split = judgeScenarios({
      reference: undefined,
      outcomes: outcomes({ resume: number('1'), compaction: number('2') }, unknown),
      reads: ALL,
      builtIn: ALL,
    });
    expect(verdicts(split)).toEqual(['lost', 'lost', 'lost', 'lost']);
  });

  it('not-read when the built-in table sends the route no earlier reasoning; a number that came back is still kept', () => {
    const strict = judgeScenarios({ reference: '417', outcomes: outcomes({}, unknown), reads: NONE, builtIn: NONE });
    expect(verdicts(strict)).toEqual(['not-read', 'not-read', 'not-read', 'not-read']);
    expect(strict[0]?.detail).toBe('answered SECRET=unknown: by design no earlier reasoning goes back to this route');
    expect(overallVerdict(strict)).toBe('not-read');
    const loop = judgeScenarios({
      reference: '417',
      outcomes: outcomes({ resume: number('417') }, unknown),
      reads: LOOP,
      builtIn: LOOP,
    });
    expect(verdicts(loop)).toEqual(['not-read', 'kept', 'not-read', 'not-read']);
    expect(loop[0]?.detail).toContain(
      'only the tool loop in flight gets its reasoning back (thinking (signed)), no earlier turn',
    );
    expect(overallVerdict(loop)).toBe('kept');
  });

  it('lost, not not-read, when a user route row sends nothing where the built-in row sends reasoning', () => {
    const reports = judgeScenarios({ reference: '417', outcomes: outcomes({}, unknown), reads: NONE, builtIn: ALL });
    expect(verdicts(reports)).toEqual(['lost', 'lost', 'lost', 'lost']);
    expect(reports[0]?.detail).toBe(
      'answered SECRET=unknown: under a config.yaml route row no earlier reasoning goes back to this route, where the built-in table sends reasoning_content',
    );
    expect(overallVerdict(reports)).toBe('lost');
  });

  it('reads SECRET=NNN from reasoning and answers; a visible number spoils the probe', () => {
    expect(secretInReasoning('between 100 and 999 … SECRET=100? no: SECRET = 417.')).toBe('417');
    expect(secretInReasoning('no number here')).toBeUndefined();
    expect(secretInAnswer('The number: SECRET=0417')).toEqual({ kind: 'number', value: '417' });
    expect(secretInAnswer('secret=Unknown')).toEqual({ kind: 'unknown' });
    expect(secretInAnswer('I forgot')).toEqual({ kind: 'none' });
    expect(answerRevealsSecret('I chose it.', '417')).toBe(false);
    expect(answerRevealsSecret('It is 417.', '417')).toBe(true);
    expect(answerRevealsSecret('Intact (2/2).', undefined)).toBe(false);
    expect(answerRevealsSecret('I picked 583', undefined)).toBe(true);
    expect(answerRevealsSecret('I have chosen one from 100 to 999.', undefined)).toBe(false);
    expect(answerRevealsSecret('I have chosen one from 100 to 999.', '417')).toBe(false);
    expect(answerRevealsSecret('Done: SECRET=417', undefined)).toBe(true);
  });

  it('the cost estimate counts the requests the probe sends', () => {
    const priced = estimateProbeCost({ api: 'chat_completions', provider: 'deepseek', model: 'deepseek-chat' });
    expect(priced).toMatchObject({ requests: PROBE_REQUESTS, priced: true });
    expect(PROBE_REQUESTS).toBe(9);
    expect(priced.dollars.high).toBeLessThan(0.01);
    const unpriced = estimateProbeCost({ api: 'chat_completions', provider: 'openrouter', model: 'x/y' });
    expect(unpriced.priced).toBe(false);
    expect(unpriced.dollars.low).toBeGreaterThan(priced.dollars.low);
  });
});
