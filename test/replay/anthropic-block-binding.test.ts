/**
 * SPEC §26.4: binding contexts captured with each signed block, and stale blocks left out of the
 * next request with their decision — through the real encoder, so the digests are computed over
 * exactly what Hermes sends.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import type { ToolDefinition } from '../../src/core/tool-definition.js';
import { bindAnswerBlocks, bindAnswerSystem } from '../../src/replay/anthropic-binding-capture.js';
import {
  blockBindingOf,
  BOUND_MODEL_CHANGED,
  BOUND_PREFIX_CHANGED,
  BOUND_SYSTEM_CHANGED,
  PrefixDigest,
} from '../../src/replay/anthropic-block-binding.js';
import { Sha256 } from '../../src/replay/anthropic-sha256.js';
import { prepareAnthropicMessages } from '../../src/transports/anthropic-messages/anthropic-messages-encode.js';
import type { PreparedRequest, TransportRequest } from '../../src/transports/shared/transport.js';
import { NOTHING_LEARNED } from '../../src/replay/replay-route-profile.js';
import { seededRandom, splitRandomly } from '../support/random.js';

const FABLE: Route = { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-fable-5-1' };
const TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

function request(history: Message[], route: Route = FABLE, tools: ToolDefinition[] = TOOLS): TransportRequest {
  return { route, history, tools, reasoning: { enabled: true }, stream: true };
}

let counter = 0;
/** An answer the provider would give to `prepared`, bound as the runtime binds it. */
function answer(prepared: PreparedRequest, route: Route, calls = false): AssistantMessage {
  counter += 1;
  const id = `toolu_${counter}`;
  const blocks: JsonObject[] = [
    { type: 'thinking', thinking: `thought ${counter}`, signature: `SIG-${counter}` },
    calls
      ? { type: 'tool_use', id, name: 'read_file', input: { path: 'a.txt' } }
      : { type: 'text', text: `a${counter}` },
  ];
  const message: AssistantMessage = {
    role: 'assistant',
    content: calls ? null : `a${counter}`,
    anthropic_content_blocks: blocks,
    origin: { api: 'anthropic_messages', provider: 'anthropic', host: '', model: route.model },
  };
  if (calls)
    message.tool_calls = [{ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }];
  return bindAnswerBlocks(message, prepared.body, route.model);
}

/** system + two finished turns, each bound to what was sent before it. */
function conversation(): Message[] {
  const history: Message[] = [
    { role: 'system', content: 'You are Hermes.' },
    { role: 'user', content: 'q1' },
  ];
  history.push(answer(prepareAnthropicMessages(request(history)), FABLE));
  history.push({ role: 'user', content: 'read a.txt' });
  const loop = answer(prepareAnthropicMessages(request(history)), FABLE, true);
  history.push(loop, { role: 'tool', tool_call_id: loop.tool_calls?.[0]?.id ?? '', content: 'hello' });
  history.push(answer(prepareAnthropicMessages(request(history)), FABLE));
  history.push({ role: 'user', content: 'q3' });
  return history;
}

function thinkingDecisions(prepared: PreparedRequest): string[] {
  return prepared.decisions
    .filter((decision) => decision.field === 'thinking')
    .map((decision) => `m${decision.messageIndex} ${decision.action}: ${decision.reason}`);
}

describe('Sha256 (incremental)', () => {
  it('equals node:crypto however the input is split, and a mid-stream digest leaves the hash going on', () => {
    const text = 'prefix digests are chained '.repeat(40) + 'é漢🙂';
    const expected = createHash('sha256').update(text).digest('hex');
    const bytes = new TextEncoder().encode(text);
    for (let seed = 1; seed <= 20; seed += 1) {
      const parts = splitRandomly(bytes, seededRandom(seed), 90);
      const hash = new Sha256();
      for (const part of parts) {
        hash.update(part);
        hash.hex();
      }
      expect(hash.hex()).toBe(expected);
    }
    const branch = new Sha256().update('ab');
    const copy = branch.copy().update('c');
    expect(branch.hex()).toBe(createHash('sha256').update('ab').digest('hex'));
    expect(copy.hex()).toBe(createHash('sha256').update('abc').digest('hex'));
  });
});

describe('PrefixDigest is canonical (SPEC §26.4)', () => {
  it('ignores key order, cache_control and the string-or-block form; any content change differs', () => {
    const a = PrefixDigest.start('sys', [{ name: 't', input_schema: { b: 1, a: 2 } }]).message('user', 'hi');
    const b = PrefixDigest.start(
      [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      [{ input_schema: { a: 2, b: 1 }, name: 't' }],
    ).message('user', [{ text: 'hi', type: 'text' }]);
    expect(a.hex()).toBe(b.hex());
    expect(PrefixDigest.start('sys', []).message('user', 'hi!').hex()).not.toBe(
      PrefixDigest.start('sys', []).message('user', 'hi').hex(),
    );
    expect(PrefixDigest.start('sys', []).message('user', 'hi').hex()).not.toBe(
      PrefixDigest.start('sys', []).message('assistant', 'hi').hex(),
    );
  });
});

describe('binding capture and the stale-block check (SPEC §26.4)', () => {
  it('an unchanged history keeps every block: the digests captured equal the ones rebuilt', () => {
    const history = conversation();
    const stored = history.filter((message): message is AssistantMessage => message.role === 'assistant');
    for (const message of stored) {
      const binding = blockBindingOf(message.anthropic_content_blocks?.[0] ?? {});
      expect(binding?.model).toBe('claude-fable-5-1');
      expect(binding?.prefix).toMatch(/^[0-9a-f]{64}$/);
    }
    const prepared = prepareAnthropicMessages(request(history));
    expect(thinkingDecisions(prepared)).toEqual([
      'm2 kept: signed: same issuer',
      'm4 kept: signed: same issuer',
      'm6 kept: signed: same issuer',
    ]);
    // The binding context never reaches the wire.
    expect(JSON.stringify(prepared.body)).not.toContain('"_binding"');
  });

  it('a changed system prompt or tool list leaves every block out, explained', () => {
    const history = conversation();
    const edited = history.map((message) =>
      message.role === 'system' ? { ...message, content: 'You are Hermes (new AGENTS.md).' } : message,
    );
    const stale = [
      `m2 dropped: ${BOUND_PREFIX_CHANGED}`,
      `m4 dropped: ${BOUND_PREFIX_CHANGED}`,
      `m6 dropped: ${BOUND_PREFIX_CHANGED}`,
    ];
    expect(thinkingDecisions(prepareAnthropicMessages(request(edited)))).toEqual(stale);
    const moreTools = [...TOOLS, { name: 'write_file', description: 'Write', parameters: { type: 'object' } }];
    const prepared = prepareAnthropicMessages(request(history, FABLE, moreTools));
    expect(thinkingDecisions(prepared)).toEqual(stale);
    expect(JSON.stringify(prepared.body)).not.toContain('SIG-');
  });

  it('an edited earlier message invalidates the blocks after it and keeps the ones before it', () => {
    const history = conversation();
    const edited = history.map((message, index) =>
      index === 3 ? { role: 'user' as const, content: 'read b.txt' } : message,
    );
    expect(thinkingDecisions(prepareAnthropicMessages(request(edited)))).toEqual([
      'm2 kept: signed: same issuer',
      `m4 dropped: ${BOUND_PREFIX_CHANGED}`,
      `m6 dropped: ${BOUND_PREFIX_CHANGED}`,
    ]);
  });

  it('leaving out one block invalidates the later ones (their prefix held it)', () => {
    const history = conversation();
    // The first turn's block lost its binding to a different prefix (as after an import).
    const first = history[2] as AssistantMessage;
    const blocks = first.anthropic_content_blocks ?? [];
    history[2] = {
      ...first,
      anthropic_content_blocks: [
        { ...blocks[0], _binding: { model: 'claude-fable-5-1', prefix: 'unknown:import' } },
        ...blocks.slice(1),
      ],
    } as AssistantMessage;
    expect(thinkingDecisions(prepareAnthropicMessages(request(history)))).toEqual([
      `m2 dropped: ${BOUND_PREFIX_CHANGED}`,
      `m4 dropped: ${BOUND_PREFIX_CHANGED}`,
      `m6 dropped: ${BOUND_PREFIX_CHANGED}`,
    ]);
  });

  it('/model to another bound Claude model: every block is bound to another model', () => {
    const history = conversation();
    const opus: Route = { ...FABLE, model: 'claude-opus-5-5' };
    expect(thinkingDecisions(prepareAnthropicMessages(request(history, opus)))).toEqual([
      `m2 dropped: ${BOUND_MODEL_CHANGED}`,
      `m4 dropped: ${BOUND_MODEL_CHANGED}`,
      `m6 dropped: ${BOUND_MODEL_CHANGED}`,
    ]);
  });

  it('a block Hermes never digested (older history) is sent: only the provider can judge it', () => {
    const history = conversation().map((message): Message =>
      message.role === 'assistant'
        ? {
            ...message,
            anthropic_content_blocks: (message.anthropic_content_blocks ?? []).map(({ _binding, ...rest }) => rest),
          }
        : message,
    );
    const edited = history.map((message) => (message.role === 'system' ? { ...message, content: 'changed' } : message));
    expect(thinkingDecisions(prepareAnthropicMessages(request(edited)))).toEqual([
      'm2 kept: signed: same issuer',
      'm4 kept: signed: same issuer',
      'm6 kept: signed: same issuer',
    ]);
  });

  it('a model that runs no prefix check gets no check (no valid block dropped)', () => {
    const opus5: Route = { ...FABLE, model: 'claude-opus-5' };
    const history: Message[] = [
      { role: 'system', content: 'one' },
      { role: 'user', content: 'q1' },
    ];
    history.push(answer(prepareAnthropicMessages(request(history, opus5)), opus5));
    history.push({ role: 'user', content: 'q2' });
    const edited = history.map((message) => (message.role === 'system' ? { ...message, content: 'two' } : message));
    expect(thinkingDecisions(prepareAnthropicMessages(request(edited, opus5)))).toEqual([
      'm2 kept: signed: same issuer',
    ]);
  });
});

describe('the drop_block declaration (SPEC §26.4)', () => {
  it('goes to the direct API for a documented model with the beta, never to Bedrock, Vertex, relays or other models', () => {
    const declared = (route: Route) =>
      JSON.stringify(prepareAnthropicMessages(request([{ role: 'user', content: 'q' }], route)).body['thinking']);
    expect(declared(FABLE)).toBe('{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"drop_block"}}');
    expect(declared({ ...FABLE, model: 'claude-haiku-5-5' })).toContain('drop_block');
    expect(declared({ ...FABLE, model: 'claude-opus-5' })).toBe('{"type":"adaptive"}');
    expect(
      declared({
        ...FABLE,
        baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
        model: 'us.anthropic.claude-fable-5-1',
      }),
    ).not.toContain('block_binding');
    expect(
      declared({ ...FABLE, baseUrl: 'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/l' }),
    ).not.toContain('block_binding');
    expect(declared({ ...FABLE, provider: 'openrouter', baseUrl: 'https://relay.example.com/v1' })).not.toContain(
      'block_binding',
    );
  });

  it('is not declared once the route refused it (learned)', () => {
    const refused = {
      ...request([{ role: 'user', content: 'q' }]),
      learned: {
        rejectedCarriers: [],
        rejectedThinkingFingerprints: [],
        replayEncryptedReasoning: true,
        bindingControlsRefused: true,
      },
    };
    expect(prepareAnthropicMessages(refused).body['thinking']).toEqual({ type: 'adaptive' });
  });
});

describe('the system binding of models that run no prefix check (SPEC §26.4)', () => {
  const opus4: Route = { ...FABLE, model: 'claude-opus-4-8' };
  /** system, a question, its answer bound to the system it was produced under, and a second question. */
  function underSystem(system: string): Message[] {
    const history: Message[] = [
      { role: 'system', content: 'one' },
      { role: 'user', content: 'q1' },
    ];
    const prepared = prepareAnthropicMessages(request(history, opus4));
    const plain = answer(prepared, opus4);
    const blocks = (plain.anthropic_content_blocks ?? []).map(({ _binding, ...rest }) => rest);
    history.push(bindAnswerSystem({ ...plain, anthropic_content_blocks: blocks }, prepared.body, opus4.model));
    history.push({ role: 'user', content: 'q2' });
    return history.map((message) => (message.role === 'system' ? { ...message, content: system } : message));
  }

  it('the same system prompt keeps the block and lists nothing', () => {
    const prepared = prepareAnthropicMessages(request(underSystem('one'), opus4));
    expect(thinkingDecisions(prepared)).toEqual(['m2 kept: signed: same issuer']);
    expect(prepared.systemChangedBlocks).toBeUndefined();
  });

  it('another system prompt still sends the block, and names its wire position, until the route taught it binds', () => {
    const prepared = prepareAnthropicMessages(request(underSystem('two'), opus4));
    expect(thinkingDecisions(prepared)).toEqual(['m2 kept: signed: same issuer']);
    expect(prepared.systemChangedBlocks).toEqual([[1, 0]]);
  });

  it('once the route taught it binds, the block is left out, explained', () => {
    const taught: TransportRequest = {
      ...request(underSystem('two'), opus4),
      learned: { ...NOTHING_LEARNED, systemBound: true },
    };
    const prepared = prepareAnthropicMessages(taught);
    expect(thinkingDecisions(prepared)).toEqual([`m2 dropped: ${BOUND_SYSTEM_CHANGED}`]);
    expect(prepared.systemChangedBlocks).toBeUndefined();
    const same: TransportRequest = {
      ...request(underSystem('one'), opus4),
      learned: { ...NOTHING_LEARNED, systemBound: true },
    };
    expect(thinkingDecisions(prepareAnthropicMessages(same))).toEqual(['m2 kept: signed: same issuer']);
  });
});
