/**
 * A client's repeated tools (gateway-tool-definitions.ts): a tool that comes in as the same frozen
 * object (a body element repeated in the same bytes, gateway-json-pieces.ts) gets the same frozen
 * definition on every request, on the Messages and Responses doors; a tool parsed anew gets a
 * definition of its own, equal in value. Equal definitions either way: reuse changes no request.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { deepFreeze } from '../../src/gateway/gateway-json-pieces.js';
import { parseMessagesRequest } from '../../src/gateway/gateway-messages-request.js';
import { parseResponsesRequest } from '../../src/gateway/gateway-responses-request.js';
import { keptToolDefinition } from '../../src/gateway/gateway-tool-definitions.js';

const SCHEMA = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

const messagesBody = (tools: unknown[]): JsonObject =>
  ({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], tools }) as JsonObject;
const responsesBody = (tools: unknown[]): JsonObject => ({ model: 'm', input: 'hi', tools }) as JsonObject;

describe('kept tool definitions', () => {
  it('Messages door: the same frozen tool gives the same frozen definition; a fresh one an equal new one', () => {
    const frozen = deepFreeze({ name: 'read_file', description: 'Read a file', input_schema: structuredClone(SCHEMA) });
    const [first] = parseMessagesRequest(messagesBody([frozen])).tools;
    const [again] = parseMessagesRequest(messagesBody([frozen])).tools;
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const [fresh] = parseMessagesRequest(messagesBody([structuredClone(frozen)])).tools;
    expect(fresh).not.toBe(first);
    expect(fresh).toEqual(first);
    expect(first).toEqual({ name: 'read_file', description: 'Read a file', parameters: SCHEMA });
  });

  it('Responses door: a top-level function or custom tool is kept; a namespace member is made anew', () => {
    const fn = deepFreeze({ type: 'function', name: 'read_file', description: 'Read', parameters: SCHEMA });
    const custom = deepFreeze({ type: 'custom', name: 'apply_patch', description: 'Patch' });
    const space = deepFreeze({
      type: 'namespace',
      name: 'fs',
      description: 'Files',
      tools: [{ type: 'function', name: 'ls' }],
    });
    const first = parseResponsesRequest(responsesBody([fn, custom, space])).tools;
    const again = parseResponsesRequest(responsesBody([fn, custom, space])).tools;
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    expect(again[2]).not.toBe(first[2]);
    expect(again).toEqual(first);
    expect(first.map((tool) => tool.name)).toEqual(['read_file', 'apply_patch', 'fs__ls']);
    const fresh = parseResponsesRequest(responsesBody(structuredClone([fn, custom, space]))).tools;
    expect(fresh).toEqual(first);
    expect(fresh[0]).not.toBe(first[0]);
  });

  it('makes a definition of its own for a tool that is not frozen', () => {
    const tool = { name: 'x' } as JsonObject;
    let made = 0;
    const make = (source: JsonObject) => {
      made += 1;
      return { name: String(source['name']), description: '', parameters: {} };
    };
    expect(keptToolDefinition(tool, make)).not.toBe(keptToolDefinition(tool, make));
    const frozen = deepFreeze({ name: 'y' } as JsonObject);
    expect(keptToolDefinition(frozen, make)).toBe(keptToolDefinition(frozen, make));
    expect(made).toBe(3);
  });
});
