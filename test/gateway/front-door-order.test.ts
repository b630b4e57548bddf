import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { messagesConversation, responsesConversation, statuses, useFrontDoors } from './front-door-helpers.js';

/**
 * SPEC §26.3: answers put reasoning first, as the real APIs do, also when the route sends its
 * (opaque-only) reasoning after the text; and a reasoning item the client sends back anywhere in
 * its turn belongs to that turn.
 */

const doors = useFrontDoors();

describe('reasoning goes out first (SPEC §26.3)', () => {
  it.each([false, true])('Messages on gemini-openai (stream %s): thinking, then text or tool_use', async (stream) => {
    const { gateway } = await doors.gateway(['gemini-openai']);
    const chat = messagesConversation(doors.anthropic(gateway), 'gemini-openai');
    const [call, answer] = await chat.turn('read the file notes.txt', { stream });
    expect(call!.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(answer!.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    const [hello] = await chat.turn('hello', { stream });
    expect(hello!.content.map((block) => block.type)).toEqual(['thinking', 'text']);
  });

  it.each([false, true])('Responses on gemini-openai (stream %s): the reasoning item first', async (stream) => {
    const { gateway } = await doors.gateway(['gemini-openai']);
    const codex = responsesConversation(doors.openai(gateway), 'gemini-openai');
    const [hello] = await codex.turn('hello', { stream });
    expect(hello!.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
  });
});

describe('reasoning the client sends back in any position (SPEC §26.3)', () => {
  it('a Responses reasoning item after the text still belongs to its turn', async () => {
    const { gateway, upstreams } = await doors.gateway(['openrouter']);
    const codex = responsesConversation(doors.openai(gateway), 'openrouter');
    await codex.turn('hello', { stream: true });
    // Codex on some routes keeps the reasoning item after the message it came with.
    const reasoning = codex.input.findIndex((item) => (item as { type?: string }).type === 'reasoning');
    const [item] = codex.input.splice(reasoning, 1) as OpenAI.Responses.ResponseInputItem[];
    codex.input.push(item!);
    const [thanks] = await codex.turn('thanks', { stream: true });
    const text = thanks!.output
      .flatMap((entry) => (entry.type === 'message' ? entry.content : []))
      .map((part) => (part.type === 'output_text' ? part.text : ''))
      .join('');
    expect(text).toContain('Reasoning continuity: intact (1/1).');
    expect(statuses(upstreams['openrouter']!)).toEqual([200, 200]);
  });
});
