import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, parse as parseYaml, parseDocument, type Document } from 'yaml';
import { HermesError, UsageError } from '../core/errors.js';
import { parseConfigText, yamlProblem } from './config-load.js';

/** The path of `config.yaml` in a Hermes home. */
export function configPath(home: string): string {
  return join(home, 'config.yaml');
}

/** Reads `config.yaml` as an editable YAML document (comments kept); an empty one when missing. */
export function readConfigDocument(home: string): Document {
  let text = '';
  try {
    text = readFileSync(configPath(home), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new UsageError(`cannot read ${configPath(home)}: ${(error as Error).message}`);
    }
  }
  const document = parseDocument(text);
  if (document.errors.length) {
    throw new UsageError(`${configPath(home)}: ${yamlProblem(document.errors[0], text)}`);
  }
  if (document.contents === null) document.contents = document.createNode({}) as never;
  if (!isMap(document.contents)) throw new UsageError(`${configPath(home)}: the top level must be a mapping`);
  return document;
}

/**
 * A dotted key (`reasoning.effort`) as a YAML path. Each segment is a plain key name; a typo is
 * caught by the schema when the edited document is validated.
 */
export function keyPath(key: string): string[] {
  const segments = key.split('.');
  if (!segments.every((segment) => /^[a-z_][a-z0-9_]*$/i.test(segment))) {
    throw new UsageError(`"${key}" is not a config key (expected e.g. model, reasoning.effort, compaction.threshold)`);
  }
  return segments;
}

/** A command-line value as YAML: `true`, `3`, `0.5`, `[a, b]` keep their types; anything else is a string. */
export function parseValue(text: string): unknown {
  try {
    return parseYaml(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Sets `key` to `value` in the document; a scalar standing where a mapping is needed (`model:
 * x` then `model.name`) is a usage error rather than a silent replacement.
 */
export function setConfigValue(document: Document, key: string, value: unknown): void {
  const path = keyPath(key);
  for (let depth = 1; depth < path.length; depth++) {
    const parent = document.getIn(path.slice(0, depth), true);
    if (parent !== undefined && !isMap(parent) && !(isScalar(parent) && parent.value === null)) {
      throw new UsageError(`${path.slice(0, depth).join('.')} is not a mapping, so ${key} cannot be set`);
    }
  }
  document.setIn(path, value);
}

/** Removes `key` from the document (no error when absent). */
export function deleteConfigValue(document: Document, key: string): void {
  document.deleteIn(keyPath(key));
}

/**
 * Validates the edited document with the config schema and writes it atomically (temp file +
 * rename), creating the home directory (mode 0700) when missing. Invalid: a one-line usage error
 * and the file is left as it was.
 */
export function writeConfigDocument(home: string, document: Document): void {
  const text = document.toString();
  parseConfigText(text, configPath(home));
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const temporary = `${configPath(home)}.${process.pid}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, configPath(home));
  } catch (error) {
    throw new HermesError(`cannot write ${configPath(home)}: ${(error as Error).message}`);
  }
}
