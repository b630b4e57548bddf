import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { routeReads, shapeWireCarriers } from '../../src/replay/replay-carrier-shaping.js';
import { buildChatCompletionsMessages } from '../../src/replay/replay-chat-messages.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { GEMINI_PLACEHOLDER_SIGNATURE } from '../../src/replay/replay-stand-ins.js';
import { block, decision } from '../support/messages.js';

/** An assistant answer `a` whose readable `text` travels in both reasoning_content and reasoning. */
const readableAnswer = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: 'a',
  reasoning_content: text,
  reasoning: text,
});

const route = (provider: string, model: string, baseUrl?: string): Route => ({
  api: 'chat_completions',
  provider,
  model,
  baseUrl,
});
const assistants = (messages: JsonObject[]) => messages.filter((message) => message['role'] === 'assistant');
const toolCall = { id: 'c1', type: 'function' as const, function: { name: 'ls', arguments: '{}' } };

const RECORD = {
  type: 'hermes.native_assistant',
  extra_content: { google: { thought_signature: 'GSIG' } },
  reasoning_opaque: 'OPAQUE',
  reasoning_text: 'copilot text',
};
const STANDARD = { type: 'reasoning.text', text: 'thinking' };

describe('SPEC §7.4 which route reads which record field', () => {
  test.each([
    [route('copilot', 'gpt-5', 'https://api.githubcopilot.com'), { extraContent: false, copilot: true }],
    [route('custom', 'gemini-3-pro', 'https://api.business.githubcopilot.com'), { extraContent: true, copilot: true }],
    [route('gemini', 'Gemma-3', undefined), { extraContent: true, copilot: false }],
    [route('custom', 'gpt-5', 'https://githubcopilot.com.evil.example'), { extraContent: false, copilot: false }],
  ])('%j', (target, reads) => {
    expect(routeReads(target)).toEqual(reads);
  });
});

describe('SPEC §7.5 wire shaping', () => {
  const message: JsonObject = { role: 'assistant', content: null, reasoning_details: [STANDARD, RECORD] };

  test.each<[string, JsonObject, { model: string; baseUrl: string }, JsonObject]>([
    [
      'copilot: opaque + text lifted, record removed from RD, extra_content not lifted (model is not Gemini)',
      message,
      { model: 'claude-sonnet-4', baseUrl: 'https://api.githubcopilot.com' },
      {
        role: 'assistant',
        content: null,
        reasoning_details: [STANDARD],
        reasoning_opaque: 'OPAQUE',
        reasoning_text: 'copilot text',
      },
    ],
    [
      'gemini model: extra_content lifted only',
      message,
      { model: 'gemini-3-pro', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai' },
      { role: 'assistant', content: null, reasoning_details: [STANDARD], extra_content: RECORD.extra_content },
    ],
    [
      'other routes: nothing of the record; RD holding only the record disappears',
      { role: 'assistant', content: 'x', reasoning_details: [RECORD], reasoning_opaque: 'live' },
      { model: 'gpt-5', baseUrl: 'https://api.openai.com/v1' },
      { role: 'assistant', content: 'x' },
    ],
  ])('%s', (_name, input, route, expected) => {
    const [shaped] = shapeWireCarriers([input], route);
    expect(shaped).toEqual(expected);
  });

  test('live top-level values overlay the record; reasoning_text needs reasoning_opaque', () => {
    const [overlaid] = shapeWireCarriers(
      [{ role: 'assistant', content: null, reasoning_opaque: 'LIVE', reasoning_details: [RECORD] }],
      {
        model: 'm',
        baseUrl: 'https://api.githubcopilot.com',
      },
    );
    expect(overlaid).toMatchObject({ reasoning_opaque: 'LIVE', reasoning_text: 'copilot text' });
    const [textOnly] = shapeWireCarriers(
      [
        {
          role: 'assistant',
          content: null,
          reasoning_details: [{ type: 'hermes.native_assistant', reasoning_text: 't' }],
        },
      ],
      { model: 'm', baseUrl: 'https://api.githubcopilot.com' },
    );
    expect(textOnly).toEqual({ role: 'assistant', content: null });
  });

  test('tool-call function.thought_signature kept on Copilot, removed elsewhere', () => {
    const withSignature = {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...toolCall, function: { ...toolCall.function, thought_signature: 'S' } }],
    };
    expect(shapeWireCarriers([withSignature], { model: 'm', baseUrl: 'https://api.githubcopilot.com' })[0]).toEqual(
      withSignature,
    );
    expect(shapeWireCarriers([withSignature], { model: 'm', baseUrl: 'https://openrouter.ai/api/v1' })[0]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [toolCall],
    });
  });

  test('never mutates; returns the same list object when nothing changed', () => {
    const list = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y', reasoning_content: 'z' },
    ];
    expect(shapeWireCarriers(list, { model: 'm' })).toBe(list);
    const input = [message];
    const snapshot = structuredClone(input);
    const output = shapeWireCarriers(input, { model: 'm', baseUrl: 'https://api.githubcopilot.com' });
    expect(output).not.toBe(input);
    expect(input).toEqual(snapshot);
  });
});

describe('SPEC §7.6 chat-completions conversion', () => {
  test('wire-illegal keys are stripped by allow-list per role; api_content replaces content', () => {
    const history = [
      { role: 'system', content: 'sys', timestamp: 1, _private: true },
      { role: 'user', content: 'hi', name: 'ann', platform_message_id: 'p1', unknown_key: 1 },
      {
        role: 'assistant',
        content: 'shown',
        api_content: 'sent instead',
        reasoning_content: 'rc',
        tool_calls: [{ ...toolCall, call_id: 'call_x', response_item_id: 'fc_1' }],
        codex_reasoning_items: [{ type: 'reasoning', encrypted_content: 'E' }],
        codex_message_items: [{ id: 'm' }],
        anthropic_content_blocks: [{ type: 'thinking' }],
        bedrock_content_blocks: [{ text: 'x' }],
        finish_reason: 'tool_calls',
        tool_name: 'ls',
        effect_disposition: 'x',
        timestamp: 2,
        platform_message_id: 'p2',
        origin: { api: 'chat_completions', provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4' },
        _thinking_signature_invalidated: true,
      },
      { role: 'tool', tool_call_id: 'c1', content: 'out', tool_name: 'ls', timestamp: 3 },
    ] as unknown as Message[];
    const result = buildChatCompletionsMessages(history, route('deepseek', 'deepseek-v4'));
    expect(result.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi', name: 'ann' },
      { role: 'assistant', content: 'sent instead', tool_calls: [toolCall], reasoning_content: 'rc' },
      { role: 'tool', content: 'out', tool_call_id: 'c1' },
    ]);
  });

  test('native records of other types travel only to the profile that owns the type', () => {
    const foreign = { type: 'acme.native_assistant', blob: 'b' };
    const history: Message[] = [{ role: 'assistant', content: 'x', reasoning_details: [STANDARD, foreign, RECORD] }];
    const none = buildChatCompletionsMessages(history, route('openrouter', 'm'));
    expect(none.messages[0]?.['reasoning_details']).toEqual([STANDARD]);
    const owner = buildChatCompletionsMessages(history, route('openrouter', 'm'), {
      profileNativeReasoningDetailsType: 'acme.native_assistant',
    });
    expect(owner.messages[0]?.['reasoning_details']).toEqual([STANDARD, foreign]);
    const hermesOwner = buildChatCompletionsMessages(history, route('openrouter', 'm'), {
      profileNativeReasoningDetailsType: 'hermes.native_assistant',
    });
    expect(hermesOwner.messages[0]?.['reasoning_details']).toEqual([STANDARD, RECORD]);
    const onlyForeign = buildChatCompletionsMessages(
      [{ role: 'assistant', content: 'x', reasoning_details: [foreign] }],
      route('openrouter', 'm'),
    );
    expect('reasoning_details' in (onlyForeign.messages[0] ?? {})).toBe(false);
  });

  test.each([
    // [route, extra_content on the call, kept]
    [route('gemini', 'gemini-3-pro'), { google: { thought_signature: 'SIG' } }, true],
    [route('openrouter', 'google/gemma-3'), { google: { thought_signature: 'SIG' } }, true],
    [
      route('gemini', 'my-alias', 'https://generativelanguage.googleapis.com/v1beta/openai'),
      { google: { thought_signature: 'SIG' } },
      true,
    ],
    [route('gemini', 'gemini-3-pro'), { google: { thought_signature: '  ' } }, false],
    [route('gemini', 'gemini-3-pro'), { google: {} }, false],
    [route('gemini', 'gemini-3-pro'), { thought_signature: 'FLAT' }, true],
    [route('groq', 'openai/gpt-oss-120b'), { google: { thought_signature: 'SIG' } }, false],
    [
      route('custom', 'my-alias', 'https://generativelanguage.googleapis.com/v1beta/openai'),
      { google: { thought_signature: 'SIG' } },
      false,
    ],
  ])('tool-call extra_content gate: %j %j kept=%s', (target, extraContent, kept) => {
    // An earlier turn (a user message follows): the current turn's stand-ins (SPEC §26.2) do not apply.
    const history: Message[] = [
      { role: 'assistant', content: null, tool_calls: [{ ...toolCall, extra_content: extraContent }] },
      { role: 'user', content: 'next' },
    ];
    const [wire] = buildChatCompletionsMessages(history, target).messages;
    const calls = wire?.['tool_calls'] as JsonObject[];
    // A Gemini 3 route puts Google's placeholder on a step left without a signature (SPEC §26.2).
    const placeholder = resolveRouteProfile(target).chat.requiredCarrier?.standIn === 'placeholder';
    const dropped = placeholder
      ? { ...toolCall, extra_content: { google: { thought_signature: GEMINI_PLACEHOLDER_SIGNATURE } } }
      : toolCall;
    expect(calls[0]).toEqual(kept ? { ...toolCall, extra_content: extraContent } : dropped);
  });
});

describe('SPEC §23.2 origin-scoped opaque carriers', () => {
  const encrypted = { type: 'reasoning.encrypted', data: 'gAAAA', format: 'openai-responses-v1', id: 'rs_1' };
  const summary = { type: 'reasoning.summary', summary: 'sum', format: 'openai-responses-v1' };
  const signedText = {
    type: 'reasoning.text',
    text: 'claude thinks',
    signature: 'EvAB',
    format: 'anthropic-claude-v1',
  };
  const openRouterOrigin = {
    api: 'chat_completions' as const,
    provider: 'openrouter',
    host: 'openrouter.ai',
    model: 'anthropic/claude-sonnet-4',
  };
  const message: Message = {
    role: 'assistant',
    content: 'a',
    reasoning: 'claude thinks',
    reasoning_details: [summary, encrypted, signedText],
    origin: openRouterOrigin,
  };

  test('a foreign Anthropic-native thinking entry is dropped whole on a chat route; its text travels in reasoning', () => {
    const anthropicTurn: Message = {
      ...readableAnswer('native thought'),
      reasoning_details: [block.thinking('native thought', 'EqQB'), block.redacted('EmwK')],
      origin: { api: 'anthropic_messages', provider: 'anthropic', host: 'api.anthropic.com', model: 'claude-opus-4-8' },
    };
    const result = buildChatCompletionsMessages(
      [anthropicTurn],
      route('openrouter', 'anthropic/claude-opus-4.8', 'https://openrouter.ai/api/v1'),
    );
    expect(result.messages[0]).toEqual(readableAnswer('native thought'));
  });

  test('same issuer and model: every blob verbatim', () => {
    const result = buildChatCompletionsMessages(
      [message],
      route('openrouter', 'anthropic/claude-sonnet-4', 'https://openrouter.ai/api/v1'),
    );
    expect(result.messages[0]?.['reasoning_details']).toEqual([summary, encrypted, signedText]);
    expect(result.decisions.filter((decision) => decision.reason === 'foreign origin')).toEqual([]);
  });

  test('same issuer, other model (a /model switch): no blob travels, neither the signed Anthropic entry nor the encrypted one; the readable text does', () => {
    // Behind a relay the upstream model is the issuer: after a switch to another model a
    // signature or an encrypted blob is foreign (the emulator answers "Invalid signature in
    // thinking block" otherwise, as OpenRouter relays Anthropic's 400).
    const result = buildChatCompletionsMessages(
      [message],
      route('openrouter', 'openai/gpt-5', 'https://openrouter.ai/api/v1'),
    );
    expect(result.messages[0]).toEqual({ ...readableAnswer('claude thinks'), reasoning_details: [summary] });
    expect(result.decisions.filter((decision) => decision.reason === 'foreign origin')).toEqual([
      decision(0, 'reasoning_details[1] (reasoning.encrypted)', 'dropped', 'foreign origin', 47),
      decision(0, 'reasoning_details[2] (reasoning.text)', 'dropped', 'foreign origin', 50),
    ]);
  });

  test('foreign issuer: blobs never travel, readable text does', () => {
    const result = buildChatCompletionsMessages(
      [message],
      route('kilocode', 'anthropic/claude-sonnet-4', 'https://api.kilo.ai/api/openrouter'),
    );
    expect(result.messages[0]).toEqual({ ...readableAnswer('claude thinks'), reasoning_details: [summary] });
    expect(result.decisions.filter((decision) => decision.reason === 'foreign origin')).toEqual([
      decision(0, 'reasoning_details[1] (reasoning.encrypted)', 'dropped', 'foreign origin', 47),
      decision(0, 'reasoning_details[2] (reasoning.text)', 'dropped', 'foreign origin', 50),
    ]);
  });

  test('unstamped legacy messages follow SPEC §5–§7 only', () => {
    const { origin: _origin, ...legacy } = message;
    const result = buildChatCompletionsMessages(
      [legacy as Message],
      route('kilocode', 'x', 'https://api.kilo.ai/api/openrouter'),
    );
    expect(result.messages[0]?.['reasoning_details']).toEqual([summary, encrypted, signedText]);
  });

  test('a Copilot opaque record lifts only back to the Copilot issuer', () => {
    const copilotMessage: Message = {
      role: 'assistant',
      content: null,
      tool_calls: [toolCall],
      reasoning_details: [RECORD],
      origin: { api: 'chat_completions', provider: 'copilot', host: 'api.githubcopilot.com', model: 'claude-sonnet-4' },
    };
    const home = buildChatCompletionsMessages(
      [copilotMessage],
      route('copilot', 'claude-sonnet-4', 'https://api.githubcopilot.com'),
    );
    expect(home.messages[0]).toMatchObject({ reasoning_opaque: 'OPAQUE', reasoning_text: 'copilot text' });
    // An earlier turn: the current turn's stand-in (SPEC §26.2) is tested in replay-stand-ins.test.ts.
    const other = buildChatCompletionsMessages(
      [copilotMessage, { role: 'user', content: 'next' }],
      route('custom', 'claude-sonnet-4', 'https://proxy.githubcopilot.com'),
    );
    expect(other.messages[0]).toEqual({ role: 'assistant', content: null, tool_calls: [toolCall] });
    expect(other.decisions).toContainEqual(decision(0, 'reasoning_opaque', 'dropped', 'foreign origin', 6));
  });

  test('a Gemini tool-call signature from another issuer is dropped', () => {
    const geminiMessage: Message = {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...toolCall, extra_content: { google: { thought_signature: 'SIG' } } }],
      origin: { api: 'chat_completions', provider: 'gemini', host: '', model: 'gemini-3-pro' },
    };
    const home = buildChatCompletionsMessages(
      [geminiMessage],
      route('gemini', 'gemini-3-pro', 'https://generativelanguage.googleapis.com/v1beta/openai'),
    );
    expect((home.messages[0]?.['tool_calls'] as JsonObject[])[0]).toHaveProperty('extra_content');
    const away = buildChatCompletionsMessages(
      [geminiMessage, { role: 'user', content: 'next' }],
      route('openrouter', 'google/gemini-3-pro'),
    );
    // The foreign signature is dropped; Google's placeholder stands in for it (SPEC §26.2).
    expect((away.messages[0]?.['tool_calls'] as JsonObject[])[0]).toEqual({
      ...toolCall,
      extra_content: { google: { thought_signature: GEMINI_PLACEHOLDER_SIGNATURE } },
    });
    expect(away.decisions).toContainEqual(decision(0, 'tool_calls[0].extra_content', 'dropped', 'foreign origin'));
  });
});

describe('SPEC §6 + §23.3 builder: decisions, purity, idempotence', () => {
  const history: Message[] = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'a', reasoning_content: 'full', reasoning: 'full', reasoning_details: [STANDARD] },
    { role: 'assistant', content: null, tool_calls: [toolCall] },
  ];

  test.each([
    [route('openrouter', 'm'), ['reasoning_content', 'reasoning', 'reasoning_details']],
    [route('novita', 'm'), ['reasoning_content', 'reasoning_details']],
    [route('custom', 'm', 'http://localhost:8080/v1'), ['reasoning_content', 'reasoning']],
    [route('mistral', 'm'), []],
    [route('deepseek', 'deepseek-v4'), ['reasoning_content']],
  ])('%j sends %j', (target, carriersSent) => {
    expect(buildChatCompletionsMessages(history, target).carriersSent).toEqual(carriersSent);
  });

  test('deepseek pads the bare tool turn and explains every carrier', () => {
    const result = buildChatCompletionsMessages(history, route('deepseek', 'deepseek-v4'));
    expect(assistants(result.messages)).toEqual([
      { role: 'assistant', content: 'a', reasoning_content: 'full' },
      { role: 'assistant', content: null, tool_calls: [toolCall], reasoning_content: ' ' },
    ]);
    expect(result.decisions).toEqual([
      { messageIndex: 1, field: 'reasoning_content', action: 'kept', reason: 'route reads it', bytes: 4 },
      // The same text as reasoning_content, which travels: a copy left out, not a drop.
      {
        messageIndex: 1,
        field: 'reasoning',
        action: 'covered',
        reason: 'same text sent as reasoning_content',
        bytes: 4,
      },
      decision(1, 'reasoning_details', 'dropped', 'not read by fallback route', 22),
      { messageIndex: 2, field: 'reasoning_content', action: 'padded', reason: 'must-echo pad (deepseek)', bytes: 1 },
    ]);
    expect(result.pad).toBe(true);
    expect(result.routeKey).toEqual({ provider: 'deepseek', host: '', model: 'deepseek-v4' });
  });

  test('strict route and learned verdicts are named as reasons', () => {
    const strict = buildChatCompletionsMessages(history, route('mistral', 'm'));
    expect(new Set(strict.decisions.map((decision) => decision.reason))).toEqual(new Set(['strict route']));
    const learned = buildChatCompletionsMessages(history, route('openrouter', 'm'), {
      rejected: ['reasoning_details'],
    });
    expect(learned.decisions).toContainEqual(decision(1, 'reasoning_details', 'dropped', 'learned verdict', 22));
    expect(learned.carriers).toEqual(['reasoning_content', 'reasoning']);
  });

  test('opt-in echo pads a non-tier route (SPEC §4)', () => {
    const result = buildChatCompletionsMessages(history, route('openrouter', 'm'), { echoOptIn: true });
    expect(assistants(result.messages)[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [toolCall],
      reasoning_content: ' ',
    });
    expect(result.decisions).toContainEqual(decision(2, 'reasoning_content', 'padded', 'opt-in echo pad', 1));
  });

  test('never mutates the history and shares unchanged nested values', () => {
    const snapshot = structuredClone(history);
    const result = buildChatCompletionsMessages(history, route('openrouter', 'm'));
    expect(history).toEqual(snapshot);
    expect(result.messages[1]?.['reasoning_details']).toBe(
      history[1] && (history[1] as { reasoning_details: unknown }).reasoning_details,
    );
  });

  test('idempotent: building from its own output gives the same messages', () => {
    for (const target of [route('deepseek', 'deepseek-v4'), route('openrouter', 'm'), route('cerebras', 'm')]) {
      const once = buildChatCompletionsMessages(history, target).messages;
      const twice = buildChatCompletionsMessages(once as unknown as Message[], target).messages;
      expect(twice).toEqual(once);
    }
  });
});
