import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useE2e } from '../support/e2e.js';
import { scaledTimeout } from '../support/timeouts.js';
import { startPersona, makeGatewaySandbox, startTestGateway, assistants } from './gateway-test-helpers.js';

/**
 * SPEC §23.3, in a real browser: Debian's chromium driven by playwright-core
 * opens the inspector, gives it the token, selects a session, expands a reasoning view and
 * checks the carriers table against `/v1/sessions/{id}/requests`. Model text is shown as text,
 * never markup. A screenshot is saved to test-artifacts/gateway-inspector.png.
 */

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TOKEN = 'inspector-token-1';
const HAS_CHROMIUM = existsSync(CHROMIUM);
/** The skip reason is part of the name, so a skipped run says why (CI installs chromium in .ci/run). */
const TITLE =
  'token prompt, session list, reasoning <details>, carriers table per request' +
  (HAS_CHROMIUM ? '' : ' — skipped: /usr/bin/chromium is not installed (apt-get install chromium)');

const e2e = useE2e();

type Decision = { messageIndex: number; field: string; action: string; reason: string; bytes?: number };

interface RequestsJson {
  data: {
    id: number;
    route_key: string;
    decisions: Decision[];
    route: { header: string; table: string; must_echo: string | null; sent_to?: string };
  }[];
}

const decisionKey = (decision: Decision) =>
  [decision.messageIndex, decision.field, decision.action, decision.reason, decision.bytes].join('|');

describe('gateway web inspector in chromium', () => {
  it.skipIf(!HAS_CHROMIUM)(
    TITLE,
    async () => {
      const { emulator, route } = await startPersona('deepseek');
      e2e.defer(() => emulator.close());
      const sandbox = makeGatewaySandbox();
      const gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace, { token: TOKEN });
      e2e.defer(() => gateway.close());
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${gateway.url}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        });
      const ask = async (text: string, sessionId?: string) => {
        const response = await api('/v1/chat/completions', {
          method: 'POST',
          body: JSON.stringify({ messages: [{ role: 'user', content: text }], session_id: sessionId }),
        });
        expect(response.status).toBe(200);
        return response.headers.get('x-hermes-session-id') ?? '';
      };
      await ask('an unrelated session');
      const sessionId = await ask('read the file notes.txt');
      await ask('list the files', sessionId);
      await ask('say <img src=x onerror="document.title=1"><b>bold</b>', sessionId);
      const stored = assistants(await gateway.store.listMessages(sessionId));
      const requests = (await (await api(`/v1/sessions/${sessionId}/requests`)).json()) as RequestsJson;
      expect(requests.data.length).toBe(5);

      const context: BrowserContext = await chromium.launchPersistentContext(
        mkdtempSync(join(tmpdir(), 'hermes-inspector-profile-')),
        { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } },
      );
      e2e.defer(() => context.close());
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${gateway.url}/`);

      // The API answered 401: the page asks for the token and keeps it in sessionStorage.
      await page.locator('#token-form').waitFor({ state: 'visible' });
      await page.fill('#token', TOKEN);
      await page.click('#token-form button[type=submit]');
      await page.locator(`#sessions button[data-session-id="${sessionId}"]`).click();
      expect(await page.evaluate("sessionStorage.getItem('hermes-gateway-token')")).toBe(TOKEN);
      await expect.poll(() => page.locator('#sessions button').count()).toBe(2);

      // Turns: one section per user message; reasoning collapsed until expanded.
      const turns = page.locator('section.turn');
      await expect.poll(() => turns.count()).toBe(3);
      const firstReasoning = page.locator('details.reasoning').first();
      expect(await firstReasoning.evaluate((node) => (node as unknown as { open: boolean }).open)).toBe(false);
      await firstReasoning.locator('summary').click();
      expect(await firstReasoning.evaluate((node) => (node as unknown as { open: boolean }).open)).toBe(true);
      expect(await firstReasoning.locator('pre').innerText()).toBe(stored[0]?.reasoning_content);
      expect(await page.locator('details.reasoning').count()).toBe(stored.length);

      // Model text is text: the markup in the question shows literally and creates no element.
      expect(await page.locator('#detail img, #detail b').count()).toBe(0);
      expect(await page.locator('section.turn').nth(2).innerText()).toContain('<b>bold</b>');
      expect(await page.title()).toBe('Hermes gateway inspector');

      // Carriers table: one per request, headed by its route (table row, must-echo); its rows are
      // the request's new decisions, those the previous request made already folded below it.
      const tables = page.locator('table.carriers');
      expect(await tables.count()).toBe(requests.data.length);
      const headers = await page.locator('#detail .route').allInnerTexts();
      expect(headers).toEqual(requests.data.map((request) => request.route.header));
      expect(headers[1]).toMatch(/^route deepseek\|127\.0\.0\.1\|deepseek-v4-flash · chat_completions · table row: /);
      let folded = 0;
      for (const [index, request] of requests.data.entries()) {
        const rows = await tables
          .nth(index)
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
        const previous = requests.data[index - 1];
        const seen = new Set(
          previous && previous.route_key === request.route_key ? previous.decisions.map(decisionKey) : [],
        );
        const fresh = request.decisions.filter((decision) => !seen.has(decisionKey(decision)));
        const expected = fresh.length
          ? fresh.map((decision) => [
              `m${decision.messageIndex} assistant`,
              decision.field,
              decision.action,
              decision.reason,
              decision.bytes === undefined ? '' : String(decision.bytes),
            ])
          : [[request.decisions.length ? 'no new decision' : 'no reasoning carriers to replay (first request)']];
        expect(rows).toEqual(expected);
        const earlier = request.decisions.length - fresh.length;
        const details = page.locator(`details.earlier[data-request-id="${request.id}"]`);
        expect(await details.count()).toBe(earlier > 0 ? 1 : 0);
        if (earlier > 0) {
          expect(await details.locator('summary').innerText()).toBe(
            `${earlier} earlier decision${earlier === 1 ? '' : 's'}, as in request #${previous?.id}`,
          );
          folded += earlier;
        }
      }
      // Later requests repeat every earlier message: most of their rows are folded.
      expect(folded).toBeGreaterThan(0);
      // DeepSeek (must-echo, SPEC §4): the last request kept reasoning_content on every earlier assistant message.
      const last = requests.data[requests.data.length - 1];
      const kept = last?.decisions.filter(
        (decision) => decision.field === 'reasoning_content' && decision.action === 'kept',
      );
      expect(kept?.length).toBe(4);

      const artifacts = resolve(process.cwd(), 'test-artifacts');
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'gateway-inspector.png'), fullPage: true });
      expect(existsSync(join(artifacts, 'gateway-inspector.png'))).toBe(true);
    },
    scaledTimeout(60_000),
  );
});
