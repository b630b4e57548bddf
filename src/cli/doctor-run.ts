import { existsSync } from 'node:fs';
import type { HermesConfig } from '../config/config-load.js';
import type { Message } from '../core/message.js';
import { ApiError, HermesError } from '../core/errors.js';
import { openSessionStore, selectedStoreUrl, sqlitePathOf } from '../storage/store-open.js';
import { hermesHome, stateDbPath } from '../storage/store-paths.js';
import { loadTransport } from '../transports/transport-registry.js';
import { openCliContext } from './cli-context.js';
import { styles, useColor } from './cli-output.js';
import { openRoute } from './cli-route.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import { describeSessionLearned, listSessionLearned, sessionLabel } from './routes-learned.js';
import { thinkingBindingCheck } from './doctor-thinking-binding.js';
import { turnRouteProfile } from '../runtime/runtime-turn-options.js';
import {
  configCheck,
  dotenvCheck,
  homeCheck,
  keysCheck,
  nodeCheck,
  routeCheck,
  storeCheck,
  type DoctorCheck,
} from './doctor-checks.js';

/** Runs the checks (on the route the flags name, else the configured one) and prints them; true when none failed. */
export async function runDoctor(probe: boolean, flags: RouteFlags = {}): Promise<boolean> {
  const checks = await collectChecks(probe, flags);
  printChecks(checks);
  return !checks.some((check) => check.status === 'fail');
}

async function collectChecks(probe: boolean, flags: RouteFlags): Promise<DoctorCheck[]> {
  const home = hermesHome();
  const checks: DoctorCheck[] = [nodeCheck(), homeCheck(home)];
  const { check: configResult, config } = configCheck(home);
  checks.push(configResult);
  const dotenv = dotenvCheck();
  if (dotenv) checks.push(dotenv);
  const store = await storeCheck(home, config);
  checks.push(store, keysCheck());
  const { check: route, resolved } = routeCheck(config, flags);
  checks.push(route);
  if (store.status !== 'fail') checks.push(await verdictsCheck(home, config, resolved?.route.model));
  if (store.status !== 'fail') {
    const profile =
      resolved && config && !resolved.emulatorPersona
        ? turnRouteProfile({ route: resolved.route, routeOverrides: config.routes, echoOptIn: config.reasoningEcho })
        : null;
    const thinking = await thinkingBindingCheck(home, config, profile);
    if (thinking) checks.push(thinking);
  }
  if (config) checks.push(...(await mcpChecks(config, home)));
  if (probe) {
    checks.push(
      config && route.status !== 'fail'
        ? await probeCheck(config, flags)
        : { status: 'fail', name: 'probe', detail: 'not sent: the route check failed' },
    );
  }
  return checks;
}

/** Learned verdicts: how many, and the ones for the configured route's model. */
async function verdictsCheck(
  home: string,
  config: HermesConfig | null,
  model: string | undefined,
): Promise<DoctorCheck> {
  const url = selectedStoreUrl(config?.storageUrl, process.env);
  const path = url === undefined ? stateDbPath(home) : sqlitePathOf(url);
  // A missing state.db is not created just to say that nothing was learned.
  if (path !== null && !existsSync(path)) return { status: 'ok', name: 'verdicts', detail: 'none learned' };
  const store = openSessionStore({ url, home });
  try {
    const verdicts = await store.listVerdicts();
    const learned = await listSessionLearned(store);
    if (!verdicts.length && !learned.length) return { status: 'ok', name: 'verdicts', detail: 'none learned' };
    const lines = verdicts.map(
      (verdict) => `${verdict.model === model ? '* ' : ''}${verdict.routeKey} rejects ${verdict.fields.join(', ')}`,
    );
    const head = verdicts.length
      ? [`${verdicts.length} learned (hermes routes forget to clear):`]
      : ['none learned store-wide'];
    // Session-scoped learnings (rejected signatures, kill switches): hermes routes verdicts lists them.
    const sessions = learned.map(
      (entry) => `session ${sessionLabel(entry)}: ${describeSessionLearned(entry).join('; ')}`,
    );
    return { status: 'info', name: 'verdicts', detail: [...head, ...lines, ...sessions].join('\n') };
  } catch (error) {
    return { status: 'fail', name: 'verdicts', detail: (error as Error).message.split('\n')[0] ?? 'unreadable' };
  } finally {
    await store.close().catch(() => undefined);
  }
}

/**
 * One line per MCP server (docs/mcp.md), after starting it once: its tool count, or why it did not
 * start (a failure fails the check; a `.mcp.json` server waiting for approval is a warning).
 */
async function mcpChecks(config: HermesConfig, home: string): Promise<DoctorCheck[]> {
  const { probeMcpServers } = await import('./cli-mcp.js');
  const { reports, fileError } = await probeMcpServers(config, { home, workspace: process.cwd() });
  const checks: DoctorCheck[] = fileError ? [{ status: 'warn', name: 'mcp', detail: fileError }] : [];
  const statuses = {
    connected: 'ok',
    failed: 'fail',
    'needs-approval': 'warn',
    invalid: 'warn',
    disabled: 'info',
  } as const;
  for (const report of reports) {
    const where = `${report.name} (${report.transport ?? '-'}, ${report.source})`;
    const tools = `${report.tools.length} tool${report.tools.length === 1 ? '' : 's'}`;
    const detail = report.status === 'connected' ? [tools, report.detail].filter(Boolean).join('; ') : report.detail;
    checks.push({ status: statuses[report.status], name: 'mcp', detail: `${where}: ${detail}` });
  }
  return checks;
}

/** One tiny non-streaming request ("Reply with OK", no tools, no reasoning): status and latency. */
async function probeCheck(config: HermesConfig, flags: RouteFlags): Promise<DoctorCheck> {
  const context = openCliContext();
  const silent = { write: () => true } as unknown as NodeJS.WritableStream;
  let opened: Awaited<ReturnType<typeof openRoute>> | null = null;
  try {
    opened = await openRoute(flags, { ...context, config }, null, silent);
    const history: Message[] = [{ role: 'user', content: 'Reply with the single word OK.', timestamp: Date.now() }];
    const started = performance.now();
    const message = await (
      await loadTransport(opened.route.api)
    )
      .send({
        route: opened.route,
        history,
        tools: [],
        reasoning: { enabled: false },
        stream: false,
        apiKey: opened.apiKey,
        connectTo: opened.connectTo,
        maxAttempts: 1,
        maxTokens: 16,
      })
      .result();
    const milliseconds = Math.round(performance.now() - started);
    const text = typeof message.content === 'string' ? message.content : '';
    const answer = text.trim().replace(/\s+/g, ' ').slice(0, 40);
    return { status: 'ok', name: 'probe', detail: `answered in ${milliseconds} ms${answer ? `: "${answer}"` : ''}` };
  } catch (error) {
    const status = error instanceof ApiError ? `HTTP ${error.status}: ` : '';
    const text = error instanceof HermesError ? error.message : String(error);
    return { status: 'fail', name: 'probe', detail: `${status}${text.split('\n')[0] ?? ''}` };
  } finally {
    await opened?.close();
    await context.close();
  }
}

function printChecks(checks: DoctorCheck[]): void {
  const style = styles(useColor(process.stdout));
  const label = {
    ok: style.green('ok  '),
    warn: style.yellow('warn'),
    fail: style.red('FAIL'),
    info: style.dim('info'),
  };
  for (const check of checks) {
    const [first = '', ...more] = check.detail.split('\n');
    process.stdout.write(`${label[check.status]}  ${check.name.padEnd(9)} ${first}\n`);
    for (const line of more) process.stdout.write(`${' '.repeat(16)}${line}\n`);
  }
  const failed = checks.filter((check) => check.status === 'fail').length;
  process.stdout.write(failed ? `${failed} check${failed === 1 ? '' : 's'} failed\n` : 'healthy\n');
}
