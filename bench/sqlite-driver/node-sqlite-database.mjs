// The subset of the better-sqlite3 `Database` API that src/storage uses, implemented over Node's
// built-in `node:sqlite` (`DatabaseSync`). The bench loads it in place of better-sqlite3 (see
// use-node-sqlite.mjs), so both drivers run the very same store code, statements and pragmas.
// Used: `new Database(path, { timeout, readonly })`, `pragma(text, { simple })`, `exec`, `prepare`
// → `run`/`get`/`all`/`raw()`/`pluck()`, `transaction(fn)` with `.immediate()`/`.deferred()`/
// `.exclusive()` (nested calls become savepoints, as in better-sqlite3), `open`, `close`.
import { DatabaseSync } from 'node:sqlite';

/** A prepared statement with better-sqlite3's calling conventions. */
/** SQLite's primary result codes the store maps (sqlite3.h), by number. */
const RESULT_CODES = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/** The error with better-sqlite3's `code` (`DatabaseSync` gives the number in `errcode`). */
function withSqliteCode(error) {
  const name = typeof error?.errcode === 'number' ? RESULT_CODES[error.errcode & 0xff] : undefined;
  if (name !== undefined) error.code = name;
  return error;
}

class Statement {
  #statement;
  #pluck = false;

  constructor(statement) {
    this.#statement = statement;
  }

  /** Rows as arrays of column values (better-sqlite3 `raw(true)`; node:sqlite `setReturnArrays`). */
  raw(enabled = true) {
    this.#statement.setReturnArrays(enabled);
    return this;
  }

  /** Each row as its first column's value. */
  pluck(enabled = true) {
    this.#pluck = enabled;
    this.#statement.setReturnArrays(enabled);
    return this;
  }

  run(...parameters) {
    let result;
    try {
      result = this.#statement.run(...parameters);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
  }

  get(...parameters) {
    let row;
    try {
      row = this.#statement.get(...parameters);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return this.#pluck && row !== undefined ? row[0] : row;
  }

  all(...parameters) {
    let rows;
    try {
      rows = this.#statement.all(...parameters);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return this.#pluck ? rows.map((row) => row[0]) : rows;
  }
}

export default class Database {
  #database;
  #depth = 0;
  #savepoints = 0;

  constructor(path, options = {}) {
    this.#database = new DatabaseSync(path, { timeout: options.timeout ?? 5000, readOnly: options.readonly ?? false });
  }

  get open() {
    return this.#database.isOpen;
  }

  get inTransaction() {
    return this.#database.isTransaction;
  }

  exec(sql) {
    this.#database.exec(sql);
    return this;
  }

  prepare(sql) {
    return new Statement(this.#database.prepare(sql));
  }

  pragma(text, options = {}) {
    const rows = this.#database.prepare(`PRAGMA ${text}`).all();
    if (!options.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  /** better-sqlite3 `transaction`: BEGIN … COMMIT around `body`, ROLLBACK on a throw; nested → SAVEPOINT. */
  transaction(body) {
    const run =
      (mode) =>
      (...parameters) => {
        if (this.#depth > 0) return this.#savepoint(body, parameters);
        try {
          this.#database.exec(`BEGIN ${mode}`);
        } catch (error) {
          throw withSqliteCode(error);
        }
        this.#depth += 1;
        try {
          const result = body(...parameters);
          this.#database.exec('COMMIT');
          return result;
        } catch (error) {
          if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
          throw error;
        } finally {
          this.#depth -= 1;
        }
      };
    const wrapped = run('DEFERRED');
    wrapped.deferred = wrapped;
    wrapped.immediate = run('IMMEDIATE');
    wrapped.exclusive = run('EXCLUSIVE');
    return wrapped;
  }

  #savepoint(body, parameters) {
    const name = `bench_savepoint_${(this.#savepoints += 1)}`;
    this.#database.exec(`SAVEPOINT ${name}`);
    this.#depth += 1;
    try {
      const result = body(...parameters);
      this.#database.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.#database.exec(`ROLLBACK TO ${name}`);
      this.#database.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#depth -= 1;
    }
  }

  close() {
    this.#database.close();
    return this;
  }
}
