import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { MAX_FINGERPRINTS, StatelessTurnMemory } from '../../src/runtime/runtime-stateless-memory.js';
import { withRejectedThinking } from '../../src/replay/replay-recovery.js';
import { READ_FILE_SCHEMA, runClientTool, statuses, useFrontDoors } from './front-door-helpers.js';

/**
 * A client without a session header (an SDK app) keeps echoing a thinking block its provider
 * rejected: here the system prompt changed under a signed block (Anthropic binds signatures to
 * it, WIRE §2.6b). The first such request pays the 400 and the one retry (SPEC §9.4); every
 * later one drops the remembered block up front.
 */

const doors = useFrontDoors();
const tools: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file', input_schema: READ_FILE_SCHEMA }];

describe('stateless front-door turns remember rejected signatures', () => {
  it('one 400 and retry for the first request echoing the block, none for the next', async () => {
    const { gateway, upstreams } = await doors.gateway(['anthropic']);
    const client = doors.anthropic(gateway);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'read the file notes.txt' }];
    const send = (system: string) =>
      client.messages.create({ model: 'anthropic', max_tokens: 4096, system, tools, messages });
    const first = await send('You are the first prompt.');
    const use = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(use).toBeDefined();
    expect(first.content.some((block) => block.type === 'thinking' && block.signature !== '')).toBe(true);
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: use!.id, content: runClientTool(use!.name, {}) }],
    });
    const upstream = upstreams['anthropic']!;
    await send('You are a changed prompt.');
    expect(statuses(upstream)).toEqual([200, 400, 200]);
    // The client sends the same history again (a retry of its own, or the next step of its loop).
    await send('You are a changed prompt.');
    expect(statuses(upstream)).toEqual([200, 400, 200, 200]);
    const last = upstream.requests.at(-1)?.body as { messages: { content: { type: string }[] }[] };
    expect(last.messages[1]?.content.map((block) => block.type)).not.toContain('thinking');
  });
});

describe('StatelessTurnMemory', () => {
  it('keeps the newest fingerprints, at most its bound', () => {
    const memory = new StatelessTurnMemory();
    expect(memory.modelConfig()).toEqual({});
    const fingerprints = Array.from({ length: MAX_FINGERPRINTS + 5 }, (_, index) =>
      index.toString(16).padStart(64, '0'),
    );
    memory.learn(withRejectedThinking({}, fingerprints.slice(0, 5)));
    memory.learn(withRejectedThinking({}, fingerprints.slice(5)));
    const kept = Object.values(memory.modelConfig())[0] as string[];
    expect(kept).toHaveLength(MAX_FINGERPRINTS);
    expect(kept).not.toContain(fingerprints[0]);
    expect(kept).toContain(fingerprints.at(-1));
  });
});
