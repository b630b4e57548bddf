// Marks the CLI entry executable after tsc writes it (npm links `hermes` to dist/cli.js).
import { chmodSync, existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (existsSync(entry)) chmodSync(entry, 0o755);
