import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { checkPostgresUrl, isPostgresUrl } from '../storage/postgres-errors.js';
import type { StoreRows } from '../storage/store-rows.js';
import { hermesHome, stateDbPath } from '../storage/store-paths.js';
import { printJson } from './cli-output.js';

/** Registers `hermes sessions migrate --to URL [--from URL|PATH]`. */
export function registerSessionsMigrateCommand(sessions: Command): void {
  sessions
    .command('migrate')
    .description(
      'Copy every session, message, request record, verdict and gateway handle key to another store (SQLite <-> PostgreSQL), then verify counts and message hashes. Safe to run again.',
    )
    .requiredOption('--to <url>', 'target: postgres://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:PATH')
    .option('--from <url>', 'source: a state.db path, sqlite:PATH or postgres://… (default: the store in use)')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Examples:
  hermes sessions migrate --to postgres://hermes:secret@db:5432/hermes           state.db -> PostgreSQL
  hermes sessions migrate --from postgres://hermes:secret@db/hermes --to sqlite:./state.db   and back`,
    )
    .action(async (flags: { to: string; from?: string; json?: boolean }) => {
      // Loaded here, not at registration, so other commands and `--help` load no store code.
      const [{ loadConfig }, { selectedStoreUrl }, { describeMigration, migrateSessions, migrateSucceeded }] =
        await Promise.all([
          import('../config/config-load.js'),
          import('../storage/store-open.js'),
          import('../storage/session-migrate.js'),
        ]);
      const home = hermesHome();
      const fromUrl = flags.from ?? selectedStoreUrl(loadConfig(home).storageUrl) ?? stateDbPath(home);
      const source = await openRows(fromUrl, 'source');
      let target: StoreRows | null = null;
      try {
        target = await openRows(flags.to, 'target');
        if (source.location === target.location) throw new UsageError('--from and --to name the same store');
        const report = await migrateSessions(source, target, (line) => {
          if (!flags.json) process.stderr.write(`${line}\n`);
        });
        if (flags.json) printJson(report);
        else process.stdout.write(describeMigration(report));
        if (!migrateSucceeded(report)) process.exitCode = 1;
      } finally {
        await source.close();
        await target?.close();
      }
    });
}

/** A store URL or path as row access; a source file must exist (a target is created). */
async function openRows(value: string, role: 'source' | 'target'): Promise<StoreRows> {
  if (isPostgresUrl(value)) {
    return (await import('../storage/postgres-rows.js')).openPostgresRows(checkPostgresUrl(value));
  }
  const { sqlitePathOf } = await import('../storage/store-open.js');
  const path = sqlitePathOf(value) ?? (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? null : value);
  if (path === null) {
    throw new UsageError(`unknown store "${value.replace(/\/\/[^@/]*@/, '//')}": use postgres://… or sqlite:PATH`);
  }
  if (role === 'source' && !existsSync(path)) throw new UsageError(`no session database at ${path}`);
  return (await import('../storage/sqlite-rows.js')).openSqliteRows(path);
}
