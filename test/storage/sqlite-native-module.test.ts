import { describe, expect, it } from 'vitest';
import { nativeModuleMismatchMessage } from '../../src/storage/sqlite-native-module.js';

// The text Node v24 raises (ERR_DLOPEN_FAILED) for a better-sqlite3 compiled by Node 20.
const NODE_TEXT =
  "The module '/home/ada/hermes-ts/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
  'was compiled against a different Node.js version using\n' +
  'NODE_MODULE_VERSION 115. This version of Node.js requires\n' +
  'NODE_MODULE_VERSION 137. Please try re-compiling or re-installing\n' +
  'the module (for instance, using `npm rebuild` or `npm install`).';

describe('better-sqlite3 built for another Node.js version', () => {
  it('becomes one line naming both ABIs, this Node and the rebuild command in the install directory', () => {
    const error = Object.assign(new Error(NODE_TEXT), { code: 'ERR_DLOPEN_FAILED' });
    expect(nativeModuleMismatchMessage(error, 'v24.22.3')).toBe(
      'the SQLite driver better-sqlite3 was built for another Node.js version (NODE_MODULE_VERSION 115; ' +
        'Node v24.22.3 needs 137): run `npm rebuild better-sqlite3` in /home/ada/hermes-ts, ' +
        'or reinstall hermes with this Node',
    );
  });

  it('leaves every other error alone', () => {
    expect(nativeModuleMismatchMessage(new Error('file is not a database'))).toBeUndefined();
    expect(nativeModuleMismatchMessage('SQLITE_BUSY: database is locked')).toBeUndefined();
  });
});
