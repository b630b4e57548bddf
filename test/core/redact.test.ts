import { describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, ConnectionError, StreamError } from '../../src/core/errors.js';
import { isRedactedUrl, knownSecrets, redactError, redactText, redactUrl, REDACTED } from '../../src/core/redact.js';

/** The one redaction (SPEC §23.3): keys never leave in errors, events or bodies. */

describe('redactText', () => {
  it.each([
    ['authorization: Bearer abc.DEF-123_xyz', 'authorization: Bearer [redacted]'],
    ['{"x-api-key":"sk-ant-api03-abcdefghijklmnop"}', '{"x-api-key":"[redacted]"}'],
    ['x-goog-api-key: AIzaSyA1234567890abcdefghijklmnop', 'x-goog-api-key: [redacted]'],
    ['url ?alt=sse&key=AIzaSecretValue1234 done', 'url ?alt=sse&key=[redacted] done'],
    [
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/bedrock/aws4_request, Signature=0123456789abcdef0123',
      'AWS4-HMAC-SHA256 Credential=[redacted], Signature=[redacted]',
    ],
    ['aws_secret_access_key=wJalrXUtnFEMI/K7MDENG', 'aws_secret_access_key=[redacted]'],
    ['X-Amz-Security-Token: IQoJb3JpZ2luX2VjEPr', 'X-Amz-Security-Token: [redacted]'],
    ['key sk-proj-abcdefghijklmnop1234 leaked', 'key [redacted] leaked'],
    ['access key AKIAIOSFODNN7EXAMPLE here', 'access key [redacted] here'],
  ])('%s', (input, expected) => {
    expect(redactText(input, [])).toBe(expected);
  });

  it('keeps provider text the unknown-field classifier needs (SPEC §13)', () => {
    const text = 'messages.1.reasoning_content: Extra inputs are not permitted; x-api-key header is required';
    expect(redactText(text, [])).toBe(text);
  });

  it('removes a configured key and environment credentials literally', () => {
    const secrets = knownSecrets('plainkey12345', { AWS_SESSION_TOKEN: 'tok-session-value', HOME: '/home/user/x' });
    expect(secrets).toEqual(['tok-session-value', 'plainkey12345']);
    expect(redactText('a plainkey12345 b tok-session-value /home/user/x', secrets)).toBe(
      `a ${REDACTED} b ${REDACTED} /home/user/x`,
    );
  });
});

describe('redactError', () => {
  it('rewrites message, stack, body and causes in place, keeping the class', () => {
    const cause = new Error('raw Bearer sk-cause-secret-123456');
    const error = new StreamError('failed: Bearer sk-message-secret-123456', {
      body: '{"authorization":"Bearer sk-body-secret-123456"}',
      cause,
    });
    const redacted = redactError(error, []);
    expect(redacted).toBe(error);
    expect(redacted).toBeInstanceOf(StreamError);
    const said = [error.message, error.stack, error.body, cause.message, cause.stack].join('\n');
    expect(said).not.toMatch(/sk-(cause|message|body)-secret/);
  });

  it('redacts the body an ApiError keeps', () => {
    const error = new BadRequestError('deepseek 400: bad', { status: 400, body: 'echo x-api-key: secret-value-1' });
    redactError(error, []);
    expect(error.body).toBe('echo x-api-key: [redacted]');
  });
});

describe('URL secrets', () => {
  it.each([
    ['https://gw.example/v1?key=K3yValue99', `https://gw.example/v1?key=${REDACTED}`],
    ['https://gw.example/v1?api_key=K3yValue99&x=1', `https://gw.example/v1?api_key=${REDACTED}&x=1`],
    ['https://gw.example/v1?alt=sse&token=T0kenValue', `https://gw.example/v1?alt=sse&token=${REDACTED}`],
    ['https://gw.example/v1?access_token=abc&model=m', `https://gw.example/v1?access_token=${REDACTED}&model=m`],
    [
      'https://b.example/o?X-Amz-Signature=abcd&X-Amz-Credential=AK%2F1',
      `https://b.example/o?X-Amz-Signature=${REDACTED}&X-Amz-Credential=${REDACTED}`,
    ],
    ['https://user:S3cretPass@gw.example/v1', `https://user:${REDACTED}@gw.example/v1`],
    [
      'could not reach https://me:pw12@h.example:8443/v1/chat/completions',
      `could not reach https://me:${REDACTED}@h.example:8443/v1/chat/completions`,
    ],
    ['https://user@gw.example/v1?model=x', 'https://user@gw.example/v1?model=x'],
    ['https://gw.example/v1?alt=sse', 'https://gw.example/v1?alt=sse'],
  ])('%s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
    expect(isRedactedUrl(redactUrl(input))).toBe(input !== expected);
  });
});

describe('pieces of a known key', () => {
  const key = 'hx9Qm2Zr7Lw4Kp8Tn3Vb6Yc1Jd5Fg0Hs';

  it('redacts the first half of a key cut by a chunk boundary, and the second half', () => {
    const first = `malformed chunk: {"detail":"credential ${key.slice(0, 15)}`;
    const second = `${key.slice(15)}"}`;
    expect(redactText(first, [key])).toBe(`malformed chunk: {"detail":"credential ${REDACTED}`);
    expect(redactText(second, [key])).toBe(`${REDACTED}"}`);
  });

  it('keeps text that merely shares fewer than 8 characters with the key', () => {
    expect(redactText('hx9Qm2Z is not it', [key])).toBe('hx9Qm2Z is not it');
  });

  it('redacts overlapping and repeated pieces once each', () => {
    const text = `${key.slice(0, 10)} and ${key.slice(-12)} and ${key}`;
    expect(redactText(text, [key])).toBe(`${REDACTED} and ${REDACTED} and ${REDACTED}`);
  });
});

describe('redactError: every string the error holds', () => {
  it('redacts a key echoed as the request id', () => {
    const key = 'hx9Qm2Zr7Lw4Kp8Tn3Vb6Yc1Jd5Fg0Hs';
    const error = new AuthenticationError(`custom 401 (request id ${key})`, {
      status: 401,
      body: 'unauthorized',
      requestId: key,
    });
    redactError(error, [key]);
    expect(error.requestId).toBe(REDACTED);
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(key.slice(0, 8));
  });

  it('redacts URLs and plain-object details of the cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), {
      details: { url: 'https://u:S3cretPass@h.example/v1?key=K3yValue99', headers: { 'x-api-key': 'k-in-header' } },
    });
    const error = new ConnectionError('could not reach https://u:S3cretPass@h.example/v1?key=K3yValue99', { cause });
    redactError(error, ['k-in-header']);
    const said = JSON.stringify([error.message, cause.message, cause.details]);
    expect(said).not.toMatch(/S3cretPass|K3yValue99|k-in-header/);
  });
});
