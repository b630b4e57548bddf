import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { RECOVERIES, type RecoveryContext } from '../../src/runtime/runtime-recovery.js';
import { NATIVE_COMPACTION_OFF_KEY } from '../../src/runtime/runtime-route-memory.js';
import { recoveryContext } from './runtime-test-helpers.js';

/** SPEC §24.7 recovery row: a 4xx naming `context_management` turns native compaction off once. */

const ROW = RECOVERIES.codex_responses.find((row) => row.name === 'native-compaction-off');
const PROFILE = resolveRouteProfile({
  api: 'codex_responses',
  provider: 'openai',
  model: 'gpt-5.6',
  baseUrl: 'https://api.openai.com/v1',
});
const REFUSAL = JSON.stringify({
  error: {
    message: "Unknown parameter: 'context_management'.",
    param: 'context_management',
    code: 'unknown_parameter',
  },
});

function context(body: JsonObject, error: string, config: JsonObject = {}): Promise<RecoveryContext> {
  return recoveryContext(PROFILE, body, error, config);
}

const SENT = { model: 'gpt-5.6', context_management: [{ type: 'compaction', compact_threshold: 608 }] };

describe('SPEC §24.7 native-compaction-off recovery', () => {
  it('is the first codex_responses row', () => {
    expect(RECOVERIES.codex_responses[0]?.name).toBe('native-compaction-off');
  });

  it('classifies a 4xx naming context_management only when the request carried it', async () => {
    expect(ROW?.classify(await context(SENT, REFUSAL))).toBe(true);
    expect(ROW?.classify(await context({ model: 'gpt-5.6' }, REFUSAL))).toBe(false);
    expect(ROW?.classify(await context(SENT, '{"error":{"message":"Unknown parameter: \'foo\'."}}'))).toBe(false);
  });

  it('persists the route key once; already off, it surfaces the error', async () => {
    const first = await ROW?.learn(await context(SENT, REFUSAL));
    expect(first?.config[NATIVE_COMPACTION_OFF_KEY]).toEqual([PROFILE.routeKey]);
    expect(first?.learned).toEqual({ kind: 'native-compaction-off', fields: ['context_management'] });
    const again = await ROW?.learn(await context(SENT, REFUSAL, { [NATIVE_COMPACTION_OFF_KEY]: [PROFILE.routeKey] }));
    expect(again).toBeNull();
  });
});
