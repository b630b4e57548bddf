import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * What npm prints when Hermes is installed, and what the README says about it (section "Node
 * versions"): no dependency a user gets refuses a supported Node (so a consumer install never warns
 * `EBADENGINE`); the development-only packages that do are named, with why; and every install
 * script npm 11 lists on a consumer install is named with what it does and how to allow it.
 */

const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };

interface LockedPackage {
  dev?: boolean;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> };
const { engines } = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const readme = readFileSync('README.md', 'utf8');
const nodeVersions = readme.slice(
  readme.indexOf('## Node versions'),
  readme.indexOf('\n## ', readme.indexOf('## Node versions') + 3),
);

/** The lowest version of each supported Node line (`^20.19.0 || ^22.12.0 || ^24.0.0`). */
const SUPPORTED = engines.node.split('||').map((range) => range.trim().replace(/^\^/, ''));

const packages = Object.entries(lock.packages)
  .filter(([path]) => path.startsWith('node_modules/'))
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), entry }));

function refusesSupportedNode(entry: LockedPackage): boolean {
  const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
  return range !== undefined && SUPPORTED.some((version) => !semver.satisfies(version, range));
}

describe('npm warnings on install (README "Node versions")', () => {
  it('no package a user installs refuses a supported Node: a consumer install never warns EBADENGINE', () => {
    expect(packages.filter(({ entry }) => !entry.dev && refusesSupportedNode(entry)).map(({ name }) => name)).toEqual(
      [],
    );
  });

  it('the development-only packages that warn EBADENGINE on a supported Node are named, with why', () => {
    const refusing = [
      ...new Set(packages.filter(({ entry }) => entry.dev && refusesSupportedNode(entry)).map(({ name }) => name)),
    ];
    expect(refusing.length).toBeGreaterThan(0);
    expect(nodeVersions).toContain('EBADENGINE');
    for (const name of refusing)
      expect({ name, named: nodeVersions.includes(`\`${name}\``) }).toEqual({ name, named: true });
  });

  it('every install script of a consumer install is named with how to allow it', () => {
    const scripted = packages.filter(({ entry }) => !entry.dev && entry.hasInstallScript).map(({ name }) => name);
    expect(scripted).toEqual(['better-sqlite3']);
    expect(nodeVersions).toContain('--allow-scripts=better-sqlite3');
    // The package's own `prepare` (it builds dist/ in a clone) is listed by npm 11 too.
    expect(nodeVersions).toContain('(prepare: npm run build)');
  });
});
