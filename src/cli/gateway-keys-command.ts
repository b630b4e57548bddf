import type { Command } from 'commander';
import { printJson } from './cli-output.js';

/**
 * `hermes gateway rotate-key` and `hermes gateway keys`: the keys that seal the gateway's
 * reasoning handles (SPEC §25.6, docs/gateway.md "Sealed reasoning handles"). They live in the
 * session store (state.db, or the fleet's PostgreSQL database); secrets are never printed.
 */

/** Registers the key subcommands under `hermes gateway`. */
export function registerGatewayKeyCommands(gateway: Command): void {
  gateway
    .command('rotate-key')
    .description(
      'Add a new handle key: new handles are sealed with it; older keys keep opening the handles clients still hold.',
    )
    .option(
      '--retire-old',
      'also delete every older key: handles sealed with them no longer open (they are dropped, never an error)',
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Gateways read the stored keys before each seal and before opening a request's handles: once
this command returns, every gateway sharing the store seals with the new key, and with
--retire-old no gateway opens a handle of a retired key. Use --retire-old when a key may have
leaked: clients then lose the reasoning of earlier turns on routes that need it (the gateway
pads what DeepSeek and Kimi require), and nothing fails.

Examples:
  hermes gateway rotate-key
  hermes gateway rotate-key --retire-old`,
    )
    .action(async (flags: { retireOld?: boolean; json?: boolean }) => {
      const [{ withCliContext }, { rotateHandleKey }] = await Promise.all([
        import('./cli-context.js'),
        import('../gateway/gateway-handle-keys.js'),
      ]);
      await withCliContext(async (context) => {
        const rotation = await rotateHandleKey(context.store(), { retireOld: Boolean(flags.retireOld) });
        if (flags.json) {
          printJson({
            id: rotation.created.id,
            created_at: new Date(rotation.created.createdAt).toISOString(),
            retired: rotation.retired,
            keys: rotation.total,
          });
          return;
        }
        const older = rotation.total - 1;
        process.stdout.write(
          `new handle key ${rotation.created.id}: new handles are sealed with it; ` +
            (flags.retireOld
              ? `${rotation.retired} older key${rotation.retired === 1 ? '' : 's'} retired (their handles no longer open)\n`
              : `${older} older key${older === 1 ? '' : 's'} still open${older === 1 ? 's' : ''} earlier handles\n`),
        );
      });
    });

  gateway
    .command('keys')
    .description('List the handle keys (id, created, which one seals); secrets are never shown.')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const { withCliContext } = await import('./cli-context.js');
      await withCliContext(
        async (context) => {
          const keys = await context.store().listHandleKeys();
          const rows = keys.map((key, index) => ({
            id: key.id,
            created_at: new Date(key.createdAt).toISOString(),
            seals: index === keys.length - 1,
          }));
          if (flags.json) {
            printJson(rows);
            return;
          }
          if (rows.length === 0) {
            process.stdout.write('no handle keys yet: the first front-door answer of a gateway makes one\n');
            return;
          }
          for (const row of rows) process.stdout.write(`${row.id}  ${row.created_at}${row.seals ? '  (seals)' : ''}\n`);
        },
        { readOnly: true },
      );
    });
}
