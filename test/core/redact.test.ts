import { describe, expect, it } from 'vitest';
import { BadRequestError, StreamError } from '../../src/core/errors.js';
import { knownSecrets, redactError, redactText, REDACTED } from '../../src/core/redact.js';

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
