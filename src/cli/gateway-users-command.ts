import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { printJson } from './cli-output.js';

/**
 * `hermes gateway users add|list|revoke` (SPEC §26.10, docs/operations.md "Users"): named keys
 * beside the gateway's single token, kept in the session store (state.db, or the fleet's
 * PostgreSQL database, so every gateway of a fleet knows them at once). A key is printed once,
 * when it is made; the store keeps its SHA-256.
 */

/** Registers the `users` subcommands under `hermes gateway`. */
export function registerGatewayUserCommands(gateway: Command): void {
  const users = gateway
    .command('users')
    .description('Per-user keys for the gateway: each user sees only its own sessions, with an optional rate limit.');

  users
    .command('add <name>')
    .description('Add a user and print its key (once: only its SHA-256 is stored).')
    .option('--requests-per-minute <n>', 'POST requests (turns, token counts, branches) allowed per minute')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
The key goes in the client's usual place: "Authorization: Bearer KEY" (OpenAI clients, Codex's
env_key) or x-api-key (ANTHROPIC_API_KEY for Claude Code). A user sees only its own sessions:
the same session id from two users is two sessions. Over the limit a request is answered 429
with retry-after; the count is kept in the store, so a fleet on one PostgreSQL database shares it.
A revoked name can be added again: it gets a new key and keeps its sessions.

Examples:
  hermes gateway users add alice
  hermes gateway users add ci-bot --requests-per-minute 30
  KEY=$(hermes gateway users add bob)         the key alone on standard output`,
    )
    .action(async (name: string, flags: { requestsPerMinute?: string; json?: boolean }) => {
      const limit = parseLimit(flags.requestsPerMinute);
      const [{ withCliContext }, { addGatewayUser }] = await Promise.all([
        import('./cli-context.js'),
        import('../gateway/gateway-users.js'),
      ]);
      await withCliContext(async (context) => {
        const { user, key } = await addGatewayUser(context.store(), name, limit);
        if (flags.json) {
          printJson({
            name: user.name,
            key,
            requests_per_minute: user.requestsPerMinute,
            created_at: new Date(user.createdAt).toISOString(),
          });
          return;
        }
        process.stderr.write(
          `user ${user.name} added${limit === null ? '' : ` (${limit} requests per minute)`}; ` +
            'its key, shown this once (only its SHA-256 is stored):\n',
        );
        process.stdout.write(`${key}\n`);
      });
    });

  users
    .command('list')
    .description('List the users: name, limit, when added, and whether the key works or was revoked.')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const { withCliContext } = await import('./cli-context.js');
      await withCliContext(async (context) => {
        const rows = (await context.store().listGatewayUsers()).map((user) => ({
          name: user.name,
          requests_per_minute: user.requestsPerMinute,
          created_at: new Date(user.createdAt).toISOString(),
          revoked_at: user.revokedAt === null ? null : new Date(user.revokedAt).toISOString(),
        }));
        if (flags.json) {
          printJson(rows);
          return;
        }
        if (rows.length === 0) {
          process.stdout.write('no gateway users yet: hermes gateway users add NAME\n');
          return;
        }
        const width = Math.max(...rows.map((row) => row.name.length));
        for (const row of rows) {
          const limit = row.requests_per_minute === null ? 'no limit' : `${row.requests_per_minute}/min`;
          const state = row.revoked_at === null ? 'active' : `revoked ${row.revoked_at}`;
          process.stdout.write(`${row.name.padEnd(width)}  ${limit.padEnd(10)}  added ${row.created_at}  ${state}\n`);
        }
      });
    });

  users
    .command('revoke <name>')
    .description("Revoke a user's key: every gateway on this store refuses it (401) from the next request.")
    .action(async (name: string) => {
      const { withCliContext } = await import('./cli-context.js');
      await withCliContext(async (context) => {
        if (!(await context.store().revokeGatewayUser(name, Date.now()))) {
          throw new UsageError(`no user "${name}" with a working key (see hermes gateway users list)`);
        }
        process.stdout.write(`user ${name} revoked: its key no longer opens the gateway; its sessions stay stored\n`);
      });
    });
}

/** `--requests-per-minute`: a whole number of at least 1, or none. */
function parseLimit(text: string | undefined): number | null {
  if (text === undefined) return null;
  const limit = Number(text);
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new UsageError(`--requests-per-minute must be a whole number of at least 1, not "${text}"`);
  }
  return limit;
}
