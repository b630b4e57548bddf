import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLogger, redactFromLogs } from '../../src/logging/logger.js';

/**
 * Every line the log files get passes the one redaction as it is written (docs/architecture.md
 * "Security"): a key given on the command line, a key a provider echoed as a request id, a URL
 * with `?key=` or a password. A value too short to be a key erases nothing.
 */

describe('log lines are redacted as they are written', () => {
  it('in agent.log and errors.log, whatever field or message holds the key', () => {
    const logs = mkdtempSync(join(tmpdir(), 'hermes-logs-'));
    const key = 'hx9Qm2Zr7Lw4Kp8Tn3Vb6Yc1Jd5Fg0Hs';
    redactFromLogs(key);
    redactFromLogs('k');
    const logger = openLogger(logs, 'agent');
    logger.error(
      { requestId: key, url: 'https://user:S3cretPass@gw.example/v1?api_key=K3yValue99', half: key.slice(0, 16) },
      `provider request failed (request id ${key}): keep this line readable`,
    );
    for (const name of ['agent.log', 'errors.log']) {
      const text = readFileSync(join(logs, name), 'utf8');
      expect(text).not.toMatch(/hx9Qm2Zr|S3cretPass|K3yValue99/);
      expect(text).toContain('https://user:[redacted]@gw.example/v1?api_key=[redacted]');
      expect(text).toContain('keep this line readable');
    }
  });
});
