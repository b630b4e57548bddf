/**
 * The recovery table (runtime-recovery.ts RECOVERIES): SPEC §10 Bedrock redacted-content
 * self-heal through the runtime against the Bedrock emulator over loopback HTTP, with its one
 * WARN line and one event; and the shape of the table itself.
 */
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WIRE_APIS } from '../../src/core/origin.js';
import type { BedrockEmulator } from '../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startBedrockEmulator } from '../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { openLogger } from '../../src/logging/logger.js';
import { runAgentTurn, type AgentEvent, type AgentTurnOptions } from '../../src/runtime/agent-turn.js';
import { RECOVERIES } from '../../src/runtime/runtime-recovery.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import { createBedrockConverseTransport } from '../../src/transports/bedrock-converse/bedrock-converse-transport.js';
import { TEST_CREDENTIALS, bedrockRoute } from '../transports/bedrock-converse/bedrock-converse-fixtures.js';

let emulator: BedrockEmulator;
beforeEach(async () => {
  emulator = await startBedrockEmulator();
});
afterEach(async () => {
  await emulator.close();
});

describe('RECOVERIES', () => {
  it('has a row list for every wire API, each row named once (a row may serve several APIs)', () => {
    expect(Object.keys(RECOVERIES).sort()).toEqual([...WIRE_APIS].sort());
    const names = [...new Set(Object.values(RECOVERIES).flat())].map((row) => row.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('SPEC §10 Bedrock redacted-content self-heal is a logged runtime recovery', () => {
  it('a ValidationException about redacted content: one WARN line, one recovery event, one healed resend', async () => {
    const store = createMemorySessionStore();
    const session = await store.createSession({});
    const logs = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-recovery-')));
    const events: AgentEvent[] = [];
    const transport = createBedrockConverseTransport({ credentials: TEST_CREDENTIALS, environment: {} });
    const options: AgentTurnOptions = {
      store,
      sessionId: session.id,
      route: bedrockRoute('us.anthropic.claude-3-7-sonnet-20250219-v1:0', emulator.baseUrl),
      reasoning: { enabled: true },
      workspace: logs,
      approve: async () => false,
      logger: openLogger(logs),
      transportFor: () => transport,
      tools: [],
      onEvent: (event) => events.push(event),
    };
    await runAgentTurn('ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E', options);
    const first = (await store.listMessages(session.id))[1];
    expect(first?.role === 'assistant' && first.reasoning_details?.[0]?.['type']).toBe('redacted_thinking');
    // Bedrock's text when a redacted_thinking blob no longer decrypts (SPEC §10 self-heal).
    const rejection = 'messages.1.content.0: Invalid `data` in `redacted_thinking` block';
    const body = JSON.stringify({ message: `The model returned the following errors: ${rejection}` });
    emulator.faults.add({ kind: 'status', status: 400, body });
    const result = await runAgentTurn('What was that?', options);
    expect(result.answer).toContain('You said: What was that?');
    expect(emulator.requests.map((entry) => entry.status)).toEqual([200, 400, 200]);
    const failed = emulator.requests[1]?.body as { messages: { content: { reasoningContent?: object }[] }[] };
    const healed = emulator.requests[2]?.body as { messages: { role: string; content: unknown[] }[] };
    expect(failed.messages[1]?.content[0]?.reasoningContent).toHaveProperty('redactedContent');
    expect(healed.messages[1]).toEqual({ role: 'assistant', content: [{ text: first?.content }] });
    const recoveries = events.filter((event) => event.type === 'recovery');
    expect(recoveries).toHaveLength(1);
    const warnings = readFileSync(join(logs, 'errors.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; recovery?: string; msg: string });
    expect(warnings.filter((line) => line.recovery === 'bedrock-redacted')).toHaveLength(1);
    expect(warnings.find((line) => line.recovery === 'bedrock-redacted')?.msg).toMatch(
      /Bedrock refused redacted reasoning .* retrying once without 1 redacted block/,
    );
    // Nothing is persisted: the next request sends the stored blob again (SPEC §10).
    expect((await store.getSession(session.id))?.modelConfig).toEqual({});
  });
});
