import { describe, expect, it } from 'vitest';
import {
  DEFAULT_JSON_BODY_BOUNDS,
  parseBoundedJson,
  parseBoundedJsonBytes,
  PIECES_FROM_BYTES,
} from '../../src/gateway/gateway-bounded-json.js';
import { FrontDoorBodies } from '../../src/gateway/gateway-front-door-body.js';
import { parseMessagesRequest } from '../../src/gateway/gateway-messages-request.js';
import { seededRandom } from '../support/random.js';
import { parseJsonPieces, scanJsonBytes, type PiecesMemory } from '../../src/gateway/gateway-json-pieces.js';

/**
 * A body parsed in pieces from its bytes is the value `JSON.parse` gives the whole text, and a
 * body it cannot take in pieces is answered as the whole text is (gateway-json-pieces.ts).
 */

const STRINGS = [
  '',
  'plain',
  'quote " inside',
  'back\\slash',
  'brackets [{,:}]',
  'é ü 日本語 🙂',
  'line\nbreak',
  '\u0000\u001f',
];
const SPACES = ['', ' ', '\n', '\t', '\r\n  '];

/** Random JSON text of a value, with random whitespace between tokens. */
function randomText(random: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const space = () => pick(SPACES);
  const roll = random();
  if (depth <= 0 || roll < 0.35) {
    return pick([
      JSON.stringify(pick(STRINGS)),
      String(Math.floor(random() * 1000) - 500),
      '1.5e3',
      'true',
      'false',
      'null',
    ]);
  }
  const count = Math.floor(random() * 4);
  if (roll < 0.65) {
    const items = Array.from({ length: count }, () => `${space()}${randomText(random, depth - 1)}${space()}`);
    return `[${items.join(',')}${count === 0 ? space() : ''}]`;
  }
  const members = Array.from(
    { length: count },
    () =>
      `${space()}${JSON.stringify(pick(['a', 'b', 'messages', 'é', 'k"q', 'a']))}${space()}:${space()}${randomText(random, depth - 1)}${space()}`,
  );
  return `{${members.join(',')}}`;
}

/** A random top-level object: members whose values are mostly arrays, as request bodies are. */
function randomBody(random: () => number): string {
  const count = 1 + Math.floor(random() * 4);
  const members: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const key = JSON.stringify(['model', 'messages', 'input', 'tools', 'model', 'ä'][Math.floor(random() * 6)]);
    const value =
      random() < 0.6
        ? `[${Array.from({ length: Math.floor(random() * 5) }, () => ` ${randomText(random, 3)} `).join(',')}]`
        : randomText(random, 3);
    members.push(`${SPACES[index % SPACES.length]}${key} : ${value}`);
  }
  return ` {${members.join(',')}} \n`;
}

const inPieces = (text: string): unknown => {
  const bytes = Buffer.from(text, 'utf8');
  const layout = scanJsonBytes(bytes, DEFAULT_JSON_BODY_BOUNDS);
  return layout ? parseJsonPieces(bytes, layout) : undefined;
};

describe('JSON bodies parsed in pieces', () => {
  it('gives the value JSON.parse gives, members in the same order, over random bodies', () => {
    const random = seededRandom(7);
    let taken = 0;
    for (let round = 0; round < 3000; round += 1) {
      const text = randomBody(random);
      const value = inPieces(text);
      if (value === undefined) continue;
      taken += 1;
      expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)));
    }
    // Nearly every well-formed body is taken in pieces, not handed back.
    expect(taken).toBeGreaterThan(2900);
  });

  it('hands back what it does not read as an object of members', () => {
    for (const text of [
      '[1,2]',
      '"text"',
      '{"a":1} {"b":2}',
      '{"a":[1,]}',
      '{"a":1,}',
      '{"a" 1}',
      '{"__proto__":{"x":1}}',
      '\ufeff{"a":1}',
      '{"a":[1}',
      '{"a":[1] 2}',
    ]) {
      expect(inPieces(text)).toBeUndefined();
    }
    expect(inPieces('{}')).toEqual({});
    expect(inPieces('{"a":[]}')).toEqual({ a: [] });
    expect(inPieces('{"a":[ ]}')).toEqual({ a: [] });
  });

  it('a large body: the same value, and the same 400s, as the whole text', () => {
    const messages = Array.from({ length: 2000 }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      content: [{ type: 'text', text: `turn ${index} ${'lorem ipsum é 🙂 "q" \\ '.repeat(3)}` }],
    }));
    const text = JSON.stringify({ model: 'm', messages, system: 'be brief', tools: [{ name: 't' }] });
    const bytes = Buffer.from(text);
    expect(bytes.byteLength).toBeGreaterThan(PIECES_FROM_BYTES);
    expect(JSON.stringify(parseBoundedJsonBytes(bytes))).toBe(JSON.stringify(JSON.parse(text)));
    const broken = Buffer.from(`${text.slice(0, -1)},}`);
    expect(() => parseBoundedJsonBytes(broken)).toThrow('the request body is not valid JSON');
    const deep = Buffer.from(
      `{"messages":[${'['.repeat(70)}${']'.repeat(70)}],"pad":"${'x'.repeat(PIECES_FROM_BYTES)}"}`,
    );
    expect(() => parseBoundedJsonBytes(deep)).toThrow('nests deeper than 64 levels');
    const many = Buffer.from(JSON.stringify({ messages: Array.from({ length: 1_000_001 }, () => 0) }));
    expect(() => parseBoundedJsonBytes(many)).toThrow('more than 1000000 JSON values');
  });

  it('small bodies are parsed whole, as before', () => {
    expect(parseBoundedJsonBytes(Buffer.from('{"a":[1,2]}'))).toEqual(parseBoundedJson('{"a":[1,2]}'));
    expect(() => parseBoundedJsonBytes(Buffer.from('{'))).toThrow('the request body is not valid JSON');
  });

  it("takes the elements a conversation's next body repeats from its last one, frozen, and parses the rest", () => {
    const messages = Array.from({ length: 30 }, (_, index) => ({ role: 'user', content: `turn ${index} é` }));
    const first = Buffer.from(JSON.stringify({ model: 'm', messages }));
    let memory: PiecesMemory | undefined;
    const remember = (kept: PiecesMemory) => {
      memory = kept;
    };
    const parse = (bytes: Buffer) =>
      parseJsonPieces(bytes, scanJsonBytes(bytes, DEFAULT_JSON_BODY_BOUNDS)!, memory, remember) as {
        messages: { content: string }[];
      };
    const before = parse(first);
    expect(Object.isFrozen(before.messages[0])).toBe(true);
    // The next body: one element changed in place, two added, the model renamed.
    const next = [...messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }];
    next[29] = { role: 'user', content: 'turn 29, edited' };
    const text = JSON.stringify({ model: 'other', messages: next });
    const after = parse(Buffer.from(text));
    expect(JSON.stringify(after)).toBe(JSON.stringify(JSON.parse(text)));
    for (let index = 0; index < 29; index += 1) expect(after.messages[index]).toBe(before.messages[index]);
    expect(after.messages[29]).not.toBe(before.messages[29]);
    expect(() => {
      (after.messages[0] as { content: string }).content = 'changed';
    }).toThrow(TypeError);
  });

  it('keeps the last body of a bounded number of conversations', () => {
    const bodies = new FrontDoorBodies(2, 1000);
    const memory = (size: number): PiecesMemory => ({ bytes: Buffer.alloc(size), arrays: new Map() });
    bodies.keep('a', memory(10));
    bodies.keep('b', memory(10));
    bodies.keep('c', memory(10));
    expect(bodies.take('a')).toBeUndefined();
    expect(bodies.take('b')?.bytes.byteLength).toBe(10);
    // Taken out: a parallel request of the conversation parses whole.
    expect(bodies.take('b')).toBeUndefined();
    bodies.keep('d', memory(200));
    bodies.keep('e', memory(200));
    expect(bodies.take('c')).toBeUndefined();
    // A body over a quarter of the bytes is not kept.
    bodies.keep('f', memory(300));
    expect(bodies.take('f')).toBeUndefined();
    expect(bodies.take('e')?.bytes.byteLength).toBe(200);
  });

  it('the Messages door reads a frozen (repeated) message once: the same messages and echoes each time', () => {
    const assistant = deepFrozen({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig' },
        { type: 'text', text: 'done' },
      ],
    });
    const user = deepFrozen({ role: 'user', content: 'hi' });
    const first = parseMessagesRequest({ messages: [user, assistant, { role: 'user', content: 'next' }] });
    const second = parseMessagesRequest({ messages: [user, assistant, { role: 'user', content: 'again' }] });
    expect(second.history.messages[0]).toBe(first.history.messages[0]);
    expect(second.history.messages[1]).toBe(first.history.messages[1]);
    expect(second.history.echoes.get(1)).toBe(first.history.echoes.get(1));
    expect(second.history.messages[2]).toEqual({ role: 'user', content: 'again' });
    // A message not frozen is read anew.
    const loose = { role: 'user', content: 'hi' };
    expect(parseMessagesRequest({ messages: [loose] }).history.messages[0]).not.toBe(
      parseMessagesRequest({ messages: [loose] }).history.messages[0],
    );
  });
});

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}
