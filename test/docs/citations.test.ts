import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Comments, test titles and help texts cite the behavioural contract as "SPEC §N" / "SPEC §N.M"
 * (docs/spec.md) and the provider wire notes as "WIRE §N" / "WIRE.md §N.M" (docs/wire.md). A
 * citation is only useful when the reader can follow it, so every cited top-level section N must
 * have a `§N` heading in its document. Follow-on numbers in a list ("SPEC §13, §23.1",
 * "SPEC §3–§12", "WIRE.md §3.1/§3.4") are citations too.
 */

type Document = 'SPEC' | 'WIRE';

/** One citation: which document, the full section number, and where it was found. */
interface Citation {
  document: Document;
  section: string;
  where: string;
}

const ROOT = process.cwd();
const DOCS: Record<Document, string> = { SPEC: 'docs/spec.md', WIRE: 'docs/wire.md' };
const SOURCE_EXTENSIONS = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
/** Recorded provider traffic is data, not prose that cites the docs. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'fixtures']);

const NUMBER = String.raw`\d+(?:\.\d+)*`;
const CITATION = new RegExp(
  String.raw`\b(SPEC|WIRE)(?:\.md)? ?§(${NUMBER})((?:\s*(?:,|/|–|-|and|or)\s*§${NUMBER})*)`,
  'g',
);
const FOLLOW_ON = new RegExp(String.raw`§(${NUMBER})`, 'g');

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) files.push(...sourceFiles(join(directory, entry.name)));
    } else if (SOURCE_EXTENSIONS.test(entry.name)) {
      files.push(join(directory, entry.name));
    }
  }
  return files;
}

/** Every citation in `text`, each located as `file:line`. */
function citationsIn(text: string, file: string): Citation[] {
  const found: Citation[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(CITATION)) {
      const document = match[1] as Document;
      const where = `${file}:${index + 1}`;
      found.push({ document, section: match[2] ?? '', where });
      for (const more of (match[3] ?? '').matchAll(FOLLOW_ON)) {
        found.push({ document, section: more[1] ?? '', where });
      }
    }
  });
  return found;
}

/** The section numbers that have a `§N` or `§N.M` heading in a markdown document. */
function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  for (const match of markdown.matchAll(new RegExp(String.raw`^#{1,6} §(${NUMBER})\b`, 'gm'))) {
    headings.add(match[1] ?? '');
  }
  return headings;
}

/** Citations whose top-level section has no heading in its document. */
function undocumented(citations: readonly Citation[], headings: Record<Document, Set<string>>): Citation[] {
  return citations.filter((citation) => !headings[citation.document].has(citation.section.split('.')[0] ?? ''));
}

const citations = ['src', 'test'].flatMap((folder) =>
  sourceFiles(join(ROOT, folder)).flatMap((path) => citationsIn(readFileSync(path, 'utf8'), relative(ROOT, path))),
);
const headings: Record<Document, Set<string>> = {
  SPEC: headingsOf(readFileSync(join(ROOT, DOCS.SPEC), 'utf8')),
  WIRE: headingsOf(readFileSync(join(ROOT, DOCS.WIRE), 'utf8')),
};

describe('spec and wire citations', () => {
  it('finds the citations in src/ and test/ (the scan is not empty)', () => {
    const documents = new Set(citations.map((citation) => citation.document));
    expect(documents).toEqual(new Set(['SPEC', 'WIRE']));
    expect(citations.some((citation) => citation.where.startsWith('src/replay/replay-must-echo.ts'))).toBe(true);
  });

  for (const document of ['SPEC', 'WIRE'] as const) {
    it(`every ${document} §N cited has a heading in ${DOCS[document]}`, () => {
      const missing = undocumented(
        citations.filter((citation) => citation.document === document),
        headings,
      ).map((citation) => `${citation.document} §${citation.section} at ${citation.where}`);
      expect(missing, `document these sections in ${DOCS[document]} (a "## §N ..." heading)`).toEqual([]);
    });
  }

  it('reports a citation of a section the docs do not have, and reads follow-on numbers', () => {
    const spec = ['SPEC', '§4'].join(' ');
    const text = `// ${spec}, §999.2 and ${['WIRE.md', '§1.7/§98'].join(' ')}`;
    const found = citationsIn(text, 'example.ts');
    expect(found.map((citation) => `${citation.document} ${citation.section}`)).toEqual([
      'SPEC 4',
      'SPEC 999.2',
      'WIRE 1.7',
      'WIRE 98',
    ]);
    expect(undocumented(found, headings).map((citation) => `${citation.document} ${citation.section}`)).toEqual([
      'SPEC 999.2',
      'WIRE 98',
    ]);
  });
});
