// marked-terminal ships no types; @types/marked-terminal pins marked < 12. This declares the one
// export used (github.com/mikaelbr/marked-terminal#usage): an extension for `new Marked(…)`.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';
  export function markedTerminal(
    options?: Record<string, unknown>,
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
