import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { GOOGLE_NATIVE_ASSISTANT_TYPE, getProvider } from '../../src/providers/provider-registry.js';
import { buildChatReplay } from '../../src/replay/replay-chat-messages.js';
import { unreadCarrierDecisions } from '../../src/replay/replay-native-drops.js';
import { type Carrier, resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { decision, originStamp, toolCall } from '../support/messages.js';

/**
 * SPEC §24.11: provider-declared namespaced native carriers, through the pure chat-completions
 * engine with the registry's declared type handed to the route profile the way the transports
 * do (`routeProfileFor`).
 */

const chat = (provider: string, model: string, baseUrl?: string): Route => ({
  api: 'chat_completions',
  provider,
  model,
  ...(baseUrl === undefined ? {} : { baseUrl }),
});
const OAUTH = chat('gemini-oauth', 'gemini-3-pro', 'https://relay.example.com/v1');
const OPENROUTER = chat('openrouter', 'google/gemini-3-pro');

function replay(history: readonly Message[], route: Route, rejected: Carrier[] = []) {
  const profile = resolveRouteProfile(route, [], {
    nativeReasoningDetailsType: getProvider(route.provider)?.nativeReasoningDetailsType,
  });
  return buildChatReplay(history, profile, { rejectedCarriers: rejected });
}

const GOOGLE = { type: 'google.native_assistant', version: 1, parts: [{ text: '', thoughtSignature: 'G-SIG==' }] };
const ACME = { type: 'acme.native_assistant', blob: 'ACME-PRIVATE' };
const TEXT = { type: 'reasoning.text', text: 'plan the call' };
const SUMMARY = { type: 'reasoning.summary', summary: 'short plan' };
const ENCRYPTED = { type: 'reasoning.encrypted', data: 'ENC-BLOB' };

function assistant(details: JsonObject[], extra: Partial<Message> = {}): Message {
  return { role: 'assistant', content: 'done', reasoning_details: details, ...extra } as Message;
}

describe('SPEC §24.11 provider-declared native carriers', () => {
  test('the registry declares Google’s type for gemini-oauth, and the §5 post-step adds reasoning_details to its route', () => {
    expect(GOOGLE_NATIVE_ASSISTANT_TYPE).toBe('google.native_assistant');
    expect(getProvider('gemini-oauth')?.nativeReasoningDetailsType).toBe('google.native_assistant');
    const profile = resolveRouteProfile(OAUTH, [], { nativeReasoningDetailsType: 'google.native_assistant' });
    // No row matches the relay host: the fallback row reads reasoning_content only, plus the post-step.
    expect(profile.chat.row).toBe('fallback');
    expect(profile.chat.carriers).toEqual(['reasoning_content', 'reasoning_details']);
    // The same route without a declared type keeps the fallback set.
    expect(resolveRouteProfile(OAUTH).chat.carriers).toEqual(['reasoning_content']);
  });

  test('the declared entry travels to its own provider’s route, verbatim, and is explained as kept', () => {
    const result = replay([assistant([GOOGLE, TEXT])], OAUTH);
    expect(result.messages[0]?.['reasoning_details']).toEqual([GOOGLE, TEXT]);
    expect((result.messages[0]?.['reasoning_details'] as JsonObject[])[0]).toBe(GOOGLE);
    expect(result.decisions).toContainEqual(
      decision(
        0,
        'reasoning_details[0] (google.native_assistant)',
        'kept',
        'provider declares this native carrier',
        expect.any(Number) as number,
      ),
    );
  });

  test('any other namespaced entry is stripped, even one no registered provider declares, with a decision', () => {
    expect(getProvider('acme')).toBeUndefined();
    for (const route of [OAUTH, OPENROUTER, chat('novita', 'm')]) {
      const result = replay([assistant([ACME, TEXT])], route);
      expect(result.messages[0]?.['reasoning_details'], route.provider).toEqual([TEXT]);
      expect(result.decisions, route.provider).toContainEqual({
        messageIndex: 0,
        field: 'reasoning_details[0] (acme.native_assistant)',
        action: 'dropped',
        reason: 'native carrier of another provider',
        // Every string inside the entry (SPEC §24.10 sizing).
        bytes: 'ACME-PRIVATE'.length + 'acme.native_assistant'.length,
      });
    }
    // Google's own entry is foreign on every other provider's route; a list of nothing else disappears.
    const other = replay([assistant([GOOGLE])], OPENROUTER);
    expect('reasoning_details' in (other.messages[0] as JsonObject)).toBe(false);
    expect(other.decisions.map((decision) => `${decision.action} ${decision.field} ${decision.reason}`)).toContain(
      'dropped reasoning_details[0] (google.native_assistant) native carrier of another provider',
    );
  });

  test('standard entries are not touched by the rule: same entries, same objects, on the owner and elsewhere', () => {
    const standard = [TEXT, SUMMARY, ENCRYPTED];
    for (const route of [OAUTH, OPENROUTER]) {
      const result = replay([assistant([GOOGLE, ...standard, ACME])], route);
      const wire = (result.messages[0]?.['reasoning_details'] as JsonObject[]).filter(
        (entry) => !String(entry['type']).endsWith('.native_assistant'),
      );
      expect(wire, route.provider).toEqual(standard);
      wire.forEach((entry, index) => expect(entry).toBe(standard[index]));
    }
  });

  test('a session that switches away from the owner and back: the owner gets its entry back byte for byte', () => {
    const origin = originStamp('chat_completions', 'gemini-oauth', 'relay.example.com', 'gemini-3-pro');
    const history: Message[] = [
      { role: 'user', content: 'list files' },
      assistant([GOOGLE, TEXT], {
        content: null,
        tool_calls: [toolCall('c1', 'ls')],
        origin,
      }),
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      assistant([{ type: 'reasoning.text', text: 'deepseek thought' }], { reasoning_content: 'deepseek thought' }),
    ];
    const before = JSON.stringify(history);

    const owner = replay(history, OAUTH);
    const away = replay(history, chat('deepseek', 'deepseek-v4'));
    const fallback = replay(history, OPENROUTER);
    const back = replay(history, OAUTH);

    // Away: deepseek does not read reasoning_details at all; OpenRouter reads it, but not Google's entry.
    expect(away.messages[1]?.['reasoning_details']).toBeUndefined();
    // One byte count per carrier: the standard entries are sized apart from Google's entry.
    expect(
      away.decisions.filter(
        (decision) => decision.messageIndex === 1 && decision.field.startsWith('reasoning_details'),
      ),
    ).toEqual([
      decision(
        1,
        'reasoning_details',
        'dropped',
        'not read by fallback route',
        'reasoning.text'.length + 'plan the call'.length,
      ),
      decision(
        1,
        'reasoning_details[0] (google.native_assistant)',
        'dropped',
        'native carrier of another provider',
        'google.native_assistant'.length + 'G-SIG=='.length,
      ),
    ]);
    expect(fallback.messages[1]?.['reasoning_details']).toEqual([TEXT]);
    expect(fallback.decisions).toContainEqual(
      expect.objectContaining(
        decision(1, 'reasoning_details[0] (google.native_assistant)', 'dropped', 'native carrier of another provider'),
      ),
    );
    // Back on the owner: the same bytes as the first request and as stored.
    const sent = (back.messages[1]?.['reasoning_details'] as JsonObject[])[0];
    expect(JSON.stringify(sent)).toBe(JSON.stringify(GOOGLE));
    expect(JSON.stringify(back.messages)).toBe(JSON.stringify(owner.messages));
    // Stored history keeps every entry.
    expect(JSON.stringify(history)).toBe(before);
  });

  test('a learned verdict against reasoning_details keeps even the owner’s entry off the wire', () => {
    const result = replay([assistant([GOOGLE, TEXT])], OAUTH, ['reasoning_details']);
    expect('reasoning_details' in (result.messages[0] as JsonObject)).toBe(false);
    expect(result.decisions).toContainEqual(
      expect.objectContaining({
        field: 'reasoning_details[0] (google.native_assistant)',
        action: 'dropped',
        reason: 'learned verdict',
      }),
    );
  });

  test('the native Gemini encoder reads no namespaced provider carrier and says so (SPEC §24.10)', () => {
    const message = assistant([{ type: 'hermes.native_assistant', extra_content: {} }, GOOGLE]);
    if (message.role !== 'assistant') throw new Error('assistant expected');
    expect(unreadCarrierDecisions(message, 3, 'gemini')).toEqual([
      decision(
        3,
        'reasoning_details[1] (google.native_assistant)',
        'dropped',
        'not read by gemini',
        expect.any(Number) as number,
      ),
    ]);
  });
});
