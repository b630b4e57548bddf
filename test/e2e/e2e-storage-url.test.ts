import { describe, expect, it } from 'vitest';
import { runHermes, useE2e } from '../support/e2e.js';

/**
 * A PostgreSQL URL with a bad host or port is one line, never a stack trace, and never shows
 * its password: a URL that does not parse is a usage error (exit 2) naming why; a host that does
 * not resolve, a closed port or a Unix socket directory that does not exist (`?host=/path`) is
 * the one "cannot reach" line (exit 1).
 */

const e2e = useE2e();

describe('a bad PostgreSQL URL is one line', () => {
  it.each([
    ['postgres://hermes:s3cret@127.0.0.1:99999/db', 2, 'the port 99999 is out of range (1 to 65535)'],
    ['postgres://hermes:s3cret@127.0.0.1:abc/db', 2, 'the port "abc" is not a number'],
    ['postgres://hermes:s3cret@[::1/db', 2, 'the IPv6 host has no closing "]"'],
    ['postgres://hermes:s3/cret@127.0.0.1:99999/db', 2, 'is not a valid PostgreSQL URL'],
    ['postgres://hermes:s3cret@nosuchhost.invalid:5432/db', 1, 'cannot reach the session database'],
    ['postgres://hermes:s3cret@127.0.0.1:1/db', 1, 'cannot reach the session database'],
    ['postgres://hermes:s3cret@localhost/db?host=/nonexistent', 1, 'no socket at /nonexistent/.s.PGSQL.5432'],
    ['postgres://hermes:s3cret@localhost/db?host=/dev/null', 1, 'cannot reach the session database'],
  ])('%s', async (url, code, reason) => {
    const run = await runHermes(['sessions', 'list'], e2e.sandbox(), { HERMES_DATABASE_URL: url });
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^hermes: /);
    expect(run.stderr).toContain(reason);
    expect(run.stderr).not.toMatch(/s3\/?cret|\bat .*:\d+:\d+/);
  });
});
