import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { parseRouteKey } from '../replay/replay-route-key.js';
import { READ_ONLY, withCliContext } from './cli-context-lazy.js';
import { formatTime, printJson } from './cli-output.js';

/** Store-wide verdict fields naming refused effort levels (runtime-route-memory.ts `EFFORT_VERDICT_PREFIX`). */
const EFFORT_FIELD = 'effort:';

/** Store-wide verdict fields naming what a route binds signed thinking to (runtime-route-memory.ts `BINDING_VERDICT_PREFIX`). */
const BINDING_FIELD = 'binding:';

/** The carrier fields of a verdict (SPEC §13). */
function carrierFields(fields: readonly string[]): string[] {
  return fields.filter((field) => !field.startsWith(EFFORT_FIELD));
}

/** What a verdict says the route binds signed thinking to (SPEC §26.4), for the text listing. */
function thinkingBindings(fields: readonly string[]): string[] {
  return fields.filter((field) => field.startsWith(BINDING_FIELD)).map((field) => field.slice(BINDING_FIELD.length));
}

/** The effort levels a verdict says the route refuses. */
function refusedEfforts(fields: readonly string[]): string[] {
  return fields.filter((field) => field.startsWith(EFFORT_FIELD)).map((field) => field.slice(EFFORT_FIELD.length));
}

/** Registers `hermes routes verdicts|forget` (SPEC §23.1). */
export function registerRoutesCommand(program: Command): void {
  const routes = program
    .command('routes')
    .description(
      'Learned route verdicts: reasoning fields a (provider, host, model) rejected and Hermes stopped sending, and reasoning effort levels it refused.',
    );

  routes
    .command('verdicts')
    .description(
      'List learned verdicts (route key, fields, first seen, the error text that taught it), then what single sessions learned (rejected thinking signatures, encrypted replay or native compaction turned off).',
    )
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      await withCliContext(async (context) => {
        const verdicts = await context.store().listVerdicts();
        const { describeSessionLearned, listSessionLearned, sessionLabel } = await import('./routes-learned.js');
        const learned = await listSessionLearned(context.store());
        if (flags.json) {
          printJson(
            verdicts.map((verdict) => ({
              route_key: verdict.routeKey,
              provider: verdict.provider,
              host: verdict.host,
              model: verdict.model,
              fields: carrierFields(verdict.fields),
              refused_efforts: refusedEfforts(verdict.fields),
              first_seen: new Date(verdict.firstSeen).toISOString(),
              updated_at: new Date(verdict.updatedAt).toISOString(),
              error_text: verdict.errorText,
            })),
          );
          return;
        }
        if (!verdicts.length) {
          process.stdout.write('no learned verdicts: every route gets the carriers its table row says\n');
        }
        for (const verdict of verdicts) {
          const bindings = thinkingBindings(verdict.fields);
          const carriers = carrierFields(verdict.fields).filter((field) => !field.startsWith(BINDING_FIELD));
          const efforts = refusedEfforts(verdict.fields);
          process.stdout.write(
            `${verdict.routeKey}\n` +
              (carriers.length ? `  rejects: ${carriers.join(', ')}\n` : '') +
              (bindings.length ? `  binds signed thinking to its ${bindings.join(', ')} prompt\n` : '') +
              (efforts.length ? `  refuses reasoning effort: ${efforts.join(', ')}\n` : '') +
              `  first seen: ${formatTime(verdict.firstSeen)}\n` +
              `  taught by: ${verdict.errorText.replace(/\s+/g, ' ').slice(0, 300)}\n`,
          );
        }
        // What a single session learned (rejected signatures, kill switches) applies to it alone,
        // and is listed too, so nothing learned stays invisible (SPEC §9.4, §12, §24.8).
        if (learned.length) {
          process.stdout.write('learned in sessions (each applies to that session only):\n');
          for (const entry of learned) {
            process.stdout.write(`${sessionLabel(entry)}\n`);
            for (const line of describeSessionLearned(entry)) process.stdout.write(`  ${line}\n`);
          }
        }
      }, READ_ONLY);
    });

  routes
    .command('forget [routeKey]')
    .description('Forget the verdict of one route key (provider|host|model), or all with --all.')
    .option('--all', 'forget every verdict')
    .action(async (routeKey: string | undefined, flags: { all?: boolean }) => {
      if (!routeKey && !flags.all) throw new UsageError('name a route key (see hermes routes verdicts) or pass --all');
      if (routeKey && flags.all) throw new UsageError('give either a route key or --all, not both');
      if (routeKey && !parseRouteKey(routeKey)) {
        throw new UsageError(`"${routeKey}" is not a route key (expected provider|host|model)`);
      }
      await withCliContext(async (context) => {
        const removed = await context.store().forgetVerdicts(flags.all ? 'all' : (routeKey ?? ''));
        if (!removed && routeKey) throw new UsageError(`no verdict for "${routeKey}" (see hermes routes verdicts)`);
        process.stdout.write(`forgot ${removed} verdict${removed === 1 ? '' : 's'}\n`);
      });
    });
}
