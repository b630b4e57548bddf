/**
 * better-sqlite3 is a native module compiled for one Node.js ABI (`NODE_MODULE_VERSION`) at
 * install. Run with another Node, loading it fails with Node's multi-line ERR_DLOPEN_FAILED text;
 * this turns that into one line that names the fix. The rebuild runs where the module lives: the
 * directory that holds `node_modules/better-sqlite3`.
 */

/** Node's text for a native module built for another ABI: "… NODE_MODULE_VERSION 115. … requires NODE_MODULE_VERSION 137 …". */
const ABI_MISMATCH =
  /compiled against a different Node\.js version using\s+NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/;
const MODULE_PATH = /'([^']*?)[\\/]node_modules[\\/]better-sqlite3[\\/]/;

/**
 * The one-line explanation when `error` is better-sqlite3 failing to load because it was built for
 * another Node.js version; `undefined` for any other error.
 */
export function nativeModuleMismatchMessage(error: unknown, nodeVersion: string = process.version): string | undefined {
  const text = error instanceof Error ? error.message : String(error);
  const versions = ABI_MISMATCH.exec(text);
  if (!versions) return undefined;
  const installDirectory = MODULE_PATH.exec(text)?.[1];
  const where = installDirectory ? ` in ${installDirectory}` : '';
  return (
    `the SQLite driver better-sqlite3 was built for another Node.js version (NODE_MODULE_VERSION ${versions[1]}; ` +
    `Node ${nodeVersion} needs ${versions[2]}): run \`npm rebuild better-sqlite3\`${where}, ` +
    `or reinstall hermes with this Node`
  );
}
