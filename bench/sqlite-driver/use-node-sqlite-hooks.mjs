// Module resolve hook registered by use-node-sqlite.mjs: `better-sqlite3`, by name or by the path
// of its entry file (how vitest imports it), resolves to the node:sqlite driver.
const replacement = new URL('./node-sqlite-database.mjs', import.meta.url).href;
const entryFile = /[\\/]node_modules[\\/]better-sqlite3[\\/]lib[\\/]index\.js$/;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'better-sqlite3') return { url: replacement, shortCircuit: true };
  const resolved = await nextResolve(specifier, context);
  return entryFile.test(resolved.url) ? { url: replacement, shortCircuit: true } : resolved;
}
