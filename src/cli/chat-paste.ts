/**
 * Large pastes at the interactive prompt. A terminal wraps a paste in bracketed-paste markers
 * (`ESC[200~` … `ESC[201~`); a paste longer than {@link INLINE_PASTE_CHARACTERS} characters or
 * {@link INLINE_PASTE_LINES} lines is not typed into the line editor (echoing 300 KB through
 * readline takes tens of seconds and floods the screen): it is kept aside and one summary line
 * stands for it, `[pasted text #1: 312,004 characters, 4,210 lines]`, as other coding agents do.
 * The message sent holds the full text in place of the summary.
 */

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** Pastes up to this many characters are typed in as they are. */
export const INLINE_PASTE_CHARACTERS = 2000;
/** Pastes up to this many lines are typed in as they are. */
export const INLINE_PASTE_LINES = 20;

const SUMMARY = /\[pasted text #(\d+): [\d,]+ characters, [\d,]+ lines?\]/g;

function count(value: number, noun: string): string {
  return `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
}

function lineCount(text: string): number {
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Whether a paste is long enough to be summarised. */
function isLarge(text: string): boolean {
  return text.length > INLINE_PASTE_CHARACTERS || lineCount(text) > INLINE_PASTE_LINES;
}

/** The one-line summary of a large message (`[pasted text: 312,004 characters, 4,210 lines]`), else null. */
export function pasteSummary(text: string, number?: number): string | null {
  if (!isLarge(text)) return null;
  const label = number === undefined ? 'pasted text' : `pasted text #${number}`;
  return `[${label}: ${count(text.length, 'character')}, ${count(lineCount(text), 'line')}]`;
}

/**
 * Takes large bracketed pastes out of the terminal input. `push` returns the input to hand to
 * readline: everything outside pastes, small pastes with their markers (one multi-line message),
 * a summary line for each large paste. `expand` puts the pasted text back into a message.
 */
export class PasteFilter {
  private inPaste = false;
  private pasted = '';
  /** A chunk tail that may be the start of a marker split across reads. */
  private carry = '';
  private readonly texts = new Map<number, string>();
  private next = 1;

  /** Filters one chunk of terminal input. */
  push(chunk: string): string {
    let text = this.carry + chunk;
    this.carry = '';
    let forwarded = '';
    while (text !== '') {
      const marker = this.inPaste ? PASTE_END : PASTE_START;
      const at = text.indexOf(marker);
      if (at === -1) {
        const keep = partialMarkerLength(text, marker);
        const body = text.slice(0, text.length - keep);
        this.carry = text.slice(text.length - keep);
        if (this.inPaste) this.pasted += body;
        else forwarded += body;
        break;
      }
      if (this.inPaste) {
        this.pasted += text.slice(0, at);
        forwarded += this.finishPaste();
      } else {
        forwarded += text.slice(0, at);
        this.inPaste = true;
        this.pasted = '';
      }
      text = text.slice(at + marker.length);
    }
    return forwarded;
  }

  /** The message with every summary line replaced by the text it stands for. */
  expand(message: string): string {
    if (this.texts.size === 0) return message;
    const expanded = message.replace(SUMMARY, (summary, number: string) => this.texts.get(Number(number)) ?? summary);
    this.texts.clear();
    return expanded;
  }

  private finishPaste(): string {
    this.inPaste = false;
    // Terminals send Enter as CR inside a paste; the message keeps newlines.
    const text = this.pasted.replace(/\r\n?/g, '\n');
    this.pasted = '';
    const number = this.next;
    const summary = pasteSummary(text, number);
    if (summary === null) return `${PASTE_START}${text}${PASTE_END}`;
    this.next += 1;
    this.texts.set(number, text);
    return summary;
  }
}

/** How many trailing characters of `text` are a proper prefix of `marker`. */
function partialMarkerLength(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length -= 1) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
