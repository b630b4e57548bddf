import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startInProcessEmulator } from '../../src/cli/cli-emulator-start.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import { GEMINI_DOOR, geminiCliKeptParts, geminiCliResumedHistory } from '../../src/probe/probe-door-gemini.js';
import { inProcessFreshStart } from '../../src/probe/probe-fresh-start.js';
import { runContinuityProbe } from '../../src/probe/probe-run.js';
import { doorWayIn } from '../../src/probe/probe-way-doors.js';
import { probeWayIn } from '../../src/probe/probe-ways.js';
import { isProbeSession, listUserSessions } from '../../src/storage/session-probe.js';
import { openSessionStore } from '../../src/storage/store-open.js';
import { emulatorProbeBase } from '../support/probe-environment.js';
import { scaledTimeout } from '../support/timeouts.js';

/**
 * The Gemini door as a way in of the continuity probe (SPEC §26.5, §26.9): the client plays Gemini
 * CLI — no session id, thought parts dropped, and after `--resume` placeholder call signatures,
 * unsigned text and doubled function responses — so the resume is kept only because the door
 * finds the conversation by its history and restores each turn from its session.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the Gemini door as the probe plays it', () => {
  it('a resumed history is what Gemini CLI sends after --resume', () => {
    const history: JsonValue[] = [
      { role: 'user', parts: [{ text: 'hello' }] },
      {
        role: 'model',
        parts: [
          { text: 'calling', thoughtSignature: 'handle-1' },
          { functionCall: { id: 'c1', name: 'probe_wait', args: {} }, thoughtSignature: 'handle-1' },
          { functionCall: { id: 'c2', name: 'probe_wait', args: {} } },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'probe_wait', response: { output: 'waited' } } }] },
    ];
    const before = structuredClone(history);
    expect(geminiCliResumedHistory(history)).toEqual([
      { role: 'user', parts: [{ text: 'hello' }] },
      {
        role: 'model',
        parts: [
          { text: 'calling' },
          {
            functionCall: { id: 'c1', name: 'probe_wait', args: {} },
            thoughtSignature: 'skip_thought_signature_validator',
          },
          {
            functionCall: { id: 'c2', name: 'probe_wait', args: {} },
            thoughtSignature: 'skip_thought_signature_validator',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c1', name: 'probe_wait', response: { output: 'waited' } } },
          { functionResponse: { id: 'c1', name: 'probe_wait', response: { output: 'waited' } } },
        ],
      },
    ]);
    expect(history).toEqual(before);
  });

  it('the client keeps every part but the thoughts, and reads the thoughts as the reasoning', () => {
    const answer: JsonObject = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'SECRET=417 is mine', thought: true },
              { text: 'I have chosen.', thoughtSignature: 'h' },
              { functionCall: { id: 'c1', name: 'probe_wait', args: {} }, thoughtSignature: 'h' },
            ],
          },
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, thoughtsTokenCount: 4 },
    };
    expect(GEMINI_DOOR.read(answer)).toEqual({
      items: [
        {
          role: 'model',
          parts: [
            { text: 'I have chosen.', thoughtSignature: 'h' },
            { functionCall: { id: 'c1', name: 'probe_wait', args: {} }, thoughtSignature: 'h' },
          ],
        },
      ],
      reasoning: 'SECRET=417 is mine',
      text: 'I have chosen.',
      calls: [{ id: 'c1', name: 'probe_wait' }],
      usage: { input: 10, output: 7 },
    });
    expect(probeWayIn('gemini').label).toBe('POST /v1beta/models/{model}:streamGenerateContent');
  });

  it('of a stream the client keeps what Gemini CLI keeps: thoughts dropped, text joined under its first signature, the empty closing part gone', () => {
    const parts: JsonObject[] = [
      { text: 'Sure', thoughtSignature: 'first' },
      { text: 'SECRET=', thought: true },
      { text: '417', thought: true },
      { text: ', done.', thoughtSignature: 'second' },
      { text: '', thoughtSignature: 'closing' },
    ];
    expect(geminiCliKeptParts(parts)).toEqual({
      kept: [{ text: 'Sure, done.', thoughtSignature: 'first' }],
      thoughts: ['SECRET=', '417'],
    });
    // One part a chunk, usage in the last, as the door streams.
    const chunks = parts.map((part, index): JsonObject => ({
      candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }],
      ...(index === parts.length - 1 ? { usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2 } } : {}),
    }));
    const answer = GEMINI_DOOR.readStream!(chunks);
    expect(answer).toMatchObject({
      reasoning: 'SECRET=417',
      text: 'Sure, done.',
      calls: [],
      usage: { input: 5, output: 2 },
    });
    expect(answer.items).toEqual([{ role: 'model', parts: [{ text: 'Sure, done.', thoughtSignature: 'first' }] }]);
  });

  it(
    'kept in every scenario on deepseek: the resume restored from the session the history leads to; every session the door made is a probe',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'hermes-probe-gemini-'));
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      const emulator = await startInProcessEmulator('deepseek', 'deepseek-v4-flash');
      cleanups.push(() => emulator.close());
      const store = openSessionStore({ home });
      cleanups.push(() => store.close());
      const base = emulatorProbeBase(emulator, home);
      const unused = () => Promise.reject(new Error('no ACP agent in this test'));
      const report = await runContinuityProbe(doorWayIn(GEMINI_DOOR), {
        ...base,
        store,
        freshStart: inProcessFreshStart(() => openSessionStore({ home }), base),
        acpAgents: { live: unused, fresh: unused, close: async () => undefined },
      });
      expect(report.scenarios.map(({ name, verdict }) => [name, verdict])).toEqual([
        ['tool-loop', 'kept'],
        ['resume', 'kept'],
        ['compaction', 'kept'],
        ['branch', 'kept'],
      ]);
      // The door made the sessions (Gemini CLI names none); the probe marked each one.
      expect(report.sessionIds.length).toBeGreaterThanOrEqual(1);
      for (const id of report.sessionIds) expect(isProbeSession((await store.getSession(id))!)).toBe(true);
      expect(await listUserSessions(store)).toEqual([]);
      // The resumed history held no text signature: the pick's reasoning came from the session.
      const decisions = (await Promise.all(report.sessionIds.map((id) => store.listRequests(id)))).flatMap((requests) =>
        requests.flatMap((request) => request.decisions),
      );
      expect(decisions.some((decision) => decision['action'] === 'restored')).toBe(true);
    },
    scaledTimeout(60_000),
  );
});
