import { afterEach, describe, it } from 'vitest';
import { FAULT_TARGET_APIS, startFaultTarget, type FaultTarget } from './faults/fault-targets.js';
import { CONFORMANCE_CASES } from './transport.cases.js';

/** Every transport passes the same conformance cases against its own emulator (transport.cases.ts). */

let target: FaultTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe.each(FAULT_TARGET_APIS)('%s transport conformance', (api) => {
  it.each(CONFORMANCE_CASES.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    target = await startFaultTarget(api);
    await item.run(target);
  });
});
