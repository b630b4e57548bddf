import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseConnectTo } from '../../src/cli/cli-connect-to.js';
import { mappedUrl } from '../../src/transports/shared/transport-http-client.js';

/** HERMES_CONNECT_TO (emulation aid): valid pairs map origins; a malformed value is a usage error, never ignored. */
describe('parseConnectTo', () => {
  it('maps each FROM origin to its TO origin (paths dropped), empty input maps nothing', () => {
    expect(parseConnectTo(undefined)).toEqual(new Map());
    expect(parseConnectTo('')).toEqual(new Map());
    expect(
      parseConnectTo(
        'https://api.githubcopilot.com/v1=http://127.0.0.1:4010/x, https://generativelanguage.googleapis.com=http://127.0.0.1:4011',
      ),
    ).toEqual(
      new Map([
        ['https://api.githubcopilot.com', 'http://127.0.0.1:4010'],
        ['https://generativelanguage.googleapis.com', 'http://127.0.0.1:4011'],
      ]),
    );
  });

  it.each(['garbage', 'a=b', 'https://api.openai.com=', 'https://x.example=http://127.0.0.1:1=y', 'ftp://a=http://b'])(
    'rejects %j with a usage error naming the expected form',
    (value) => {
      const parse = () => parseConnectTo(value);
      expect(parse).toThrow(UsageError);
      expect(parse).toThrow(
        /^HERMES_CONNECT_TO: ".*" is not ORIGIN=ORIGIN \(e\.g\. https:\/\/api\.githubcopilot\.com=http:\/\/127\.0\.0\.1:4010\)$/,
      );
    },
  );
});

/** The mapping the CLI hands to the runtime: only mapped origins move; path and query stay as they are. */
describe('mappedUrl (TransportRequest.connectTo)', () => {
  const mapping = new Map([['https://api.githubcopilot.com', 'http://127.0.0.1:4010']]);

  it('sends a mapped origin to its target with path and query unchanged, and leaves others alone', () => {
    expect(mappedUrl('https://api.githubcopilot.com/chat/completions?x=1', mapping)).toBe(
      'http://127.0.0.1:4010/chat/completions?x=1',
    );
    expect(mappedUrl('https://api.githubcopilot.com', mapping)).toBe('http://127.0.0.1:4010');
    expect(mappedUrl('https://api.openai.com/v1/responses', mapping)).toBe('https://api.openai.com/v1/responses');
    expect(mappedUrl('https://api.githubcopilot.com/x', undefined)).toBe('https://api.githubcopilot.com/x');
  });
});
