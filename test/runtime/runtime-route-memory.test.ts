import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { Route } from '../../src/core/route.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { fieldsToLearn } from '../../src/runtime/runtime-recovery.js';
import {
  loadRejectedCarriers,
  persistVerdict,
  sessionRejectedCarriers,
} from '../../src/runtime/runtime-route-memory.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';

const groq: Route = {
  api: 'chat_completions',
  provider: 'Groq',
  model: 'Qwen/QwQ',
  baseUrl: 'https://api.groq.com/v1',
};
const rcBody = "'messages.1' : property 'reasoning_content' is unsupported";

describe('SPEC §13.3 recording', () => {
  test('chat-completions only: a native wire API never learns a carrier verdict', () => {
    expect(
      fieldsToLearn(resolveRouteProfile({ ...groq, api: 'anthropic_messages' }), rcBody, ['reasoning_content'], []),
    ).toEqual([]);
    expect(fieldsToLearn(resolveRouteProfile(groq), rcBody, ['reasoning_content', 'reasoning'], [])).toEqual([
      'reasoning_content',
      'reasoning',
    ]);
  });

  test('must-echo routes never record reasoning_content (an RC complaint there is a value problem)', () => {
    const deepseek: Route = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4' };
    expect(fieldsToLearn(resolveRouteProfile(deepseek), rcBody, ['reasoning_content'], [])).toEqual([]);
    expect(
      fieldsToLearn(resolveRouteProfile(deepseek), rcBody, ['reasoning_content', 'reasoning_details'], []),
    ).toEqual(['reasoning_details']);
  });

  test('SPEC §23.4: a user route row that declares must-echo is must-echo for recording too', () => {
    const acme: Route = { api: 'chat_completions', provider: 'acme', model: 'm', baseUrl: 'https://llm.acme.test' };
    const mustEchoRow = [{ providers: ['acme'], carriers: ['reasoning_content' as const], mustEcho: true }];
    expect(fieldsToLearn(resolveRouteProfile(acme), rcBody, ['reasoning_content'], [])).toEqual(['reasoning_content']);
    expect(fieldsToLearn(resolveRouteProfile(acme, mustEchoRow), rcBody, ['reasoning_content'], [])).toEqual([]);
    const notMustEcho = [{ providers: ['deepseek'], carriers: ['reasoning_content' as const], mustEcho: false }];
    const deepseek: Route = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4' };
    expect(fieldsToLearn(resolveRouteProfile(deepseek, notMustEcho), rcBody, ['reasoning_content'], [])).toEqual([
      'reasoning_content',
    ]);
  });

  test('fields already recorded for the route key are removed; nothing new → empty (no retry)', () => {
    expect(
      fieldsToLearn(resolveRouteProfile(groq), rcBody, ['reasoning_content', 'reasoning'], ['reasoning_content']),
    ).toEqual(['reasoning']);
    expect(fieldsToLearn(resolveRouteProfile(groq), rcBody, ['reasoning_content'], ['reasoning_content'])).toEqual([]);
  });

  test('persisted as [provider, host, model, [sorted fields]] merged with other route entries', async () => {
    const store = createMemorySessionStore();
    const session = await store.createSession({});
    const other = ['openrouter', 'openrouter.ai', 'x', ['reasoning']];
    await store.patchModelConfig(session.id, { keep: 1, reasoning_rejected_carriers: [other] });
    const before = (await store.getSession(session.id))?.modelConfig ?? {};
    const first = await persistVerdict(
      store,
      session.id,
      before,
      resolveRouteProfile(groq),
      ['reasoning_details'],
      rcBody,
    );
    const config = await persistVerdict(
      store,
      session.id,
      first,
      resolveRouteProfile(groq),
      ['reasoning_content'],
      rcBody,
    );
    expect(config).toEqual({
      keep: 1,
      reasoning_rejected_carriers: [
        other,
        ['groq', 'api.groq.com', 'Qwen/QwQ', ['reasoning_content', 'reasoning_details']],
      ],
    });
    expect((await store.getVerdict('groq|api.groq.com|Qwen/QwQ'))?.fields).toEqual([
      'reasoning_content',
      'reasoning_details',
    ]);
  });
});

describe('SPEC §13.3 loading', () => {
  test('only 4-element entries whose last element is a list are read, for the exact route key', () => {
    const config: JsonObject = {
      reasoning_rejected_carriers: [
        ['groq', 'api.groq.com', 'Qwen/QwQ', ['reasoning_details', 'not_a_carrier']],
        ['groq', 'api.groq.com', 'Qwen/QwQ', 'reasoning'],
        ['groq', 'api.groq.com', ['reasoning_content']],
        ['groq', 'api.groq.com', 'qwen/qwq', ['reasoning_content']],
        'garbage',
      ],
    };
    expect(sessionRejectedCarriers(config, { provider: 'groq', host: 'api.groq.com', model: 'Qwen/QwQ' })).toEqual([
      'reasoning_details',
    ]);
  });

  test('session entries and the store-wide table are united (SPEC §23.1)', async () => {
    const store = createMemorySessionStore();
    await store.recordVerdict({
      routeKey: 'groq|api.groq.com|Qwen/QwQ',
      provider: 'groq',
      host: 'api.groq.com',
      model: 'Qwen/QwQ',
      fields: ['reasoning'],
      errorText: rcBody,
    });
    const config = { reasoning_rejected_carriers: [['groq', 'api.groq.com', 'Qwen/QwQ', ['reasoning_details']]] };
    expect(await loadRejectedCarriers(store, config, resolveRouteProfile(groq))).toEqual([
      'reasoning',
      'reasoning_details',
    ]);
  });
});
