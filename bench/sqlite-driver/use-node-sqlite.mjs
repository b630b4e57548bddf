// `node --import ./bench/sqlite-driver/use-node-sqlite.mjs …`: every `import 'better-sqlite3'`
// in that process resolves to node-sqlite-database.mjs (the built-in `node:sqlite` driver behind
// better-sqlite3's API). Passed through NODE_OPTIONS, it reaches the benches' child processes too.
import { register } from 'node:module';

register('./use-node-sqlite-hooks.mjs', import.meta.url);
