/**
 * Finds where each top-level element (stanza) of an XMPP stream begins and ends in the
 * stream's text, without building it, so that:
 * - the XML parser gets each stanza whole, in one write. The parser @xmpp/client uses (ltx 3)
 *   skips character data with `indexOf("<")`, and when a write ends inside a text (a model
 *   part of 200 KB comes in chunks of 64 KB) it calls `indexOf` again for every character of
 *   the rest: quadratic, 100–600 ms of main thread per large stanza. It also slips on some
 *   other cuts (a `?>` cut in two).
 * - a stanza nobody will read can be dropped before the parser spends time on it (our own
 *   room echoes; in the benches, an instant agent's reading of every model the room fans out).
 *
 * It tracks only what decides element boundaries: tags (with quoted attribute values, which
 * may hold `>`), end tags, empty-element tags, and the constructs whose content may hold `<`
 * (comments, CDATA sections, processing instructions; RFC 6120 forbids most of them in a
 * stream, but a splitter that miscounted on one would hand the parser garbage). Character
 * data is skipped with `indexOf("<")`, so a stanza costs about one scan of its tags. What is
 * not dropped reaches the parser character for character as it came, in order, so a
 * malformed stream is still the parser's to report.
 */

/** Where the splitter hands on what it has delimited. */
export interface SplitterSink {
  /** Stream-level text: the XML declaration, the stream header, whitespace between stanzas, the stream's end. */
  passThrough(text: string): void;
  /** One whole top-level element, from its `<` to its last `>`. */
  stanza(text: string): void;
}

type MarkupKind = "start" | "end" | "empty" | "other";

const QUOT = 0x22;
const APOS = 0x27;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;

/** Constructs that run to a fixed terminator, `<` inside them being no tag. */
const RUNS: ReadonlyArray<{ opening: string; terminator: string }> = [
  { opening: "<?", terminator: "?>" },
  { opening: "<!--", terminator: "-->" },
  { opening: "<![CDATA[", terminator: "]]>" },
];

/**
 * The end (index past its last character) and kind of the markup starting at `lt` (a `<`),
 * or null when the text ends before the markup does.
 */
export function markupAt(text: string, lt: number): { end: number; kind: MarkupKind } | null {
  for (const { opening, terminator } of RUNS) {
    if (text.startsWith(opening, lt)) {
      const at = text.indexOf(terminator, lt + opening.length);
      return at < 0 ? null : { end: at + terminator.length, kind: "other" };
    }
  }
  // (A text that ends inside an opening such as `<![CDA` holds no `>` after it: null below.)
  let quote = 0;
  for (let j = lt + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === QUOT || c === APOS) {
      quote = c;
    } else if (c === GT) {
      const second = text.charCodeAt(lt + 1);
      const kind: MarkupKind = second === SLASH ? "end" : second === BANG /* <!DOCTYPE… */ ? "other" : text.charCodeAt(j - 1) === SLASH ? "empty" : "start";
      return { end: j + 1, kind };
    }
  }
  return null;
}

/** Incremental: `push` the stream's text in any cuts, in order; each stanza goes out once complete. */
export class StanzaSplitter {
  /** Open elements, the stream's own included: a stanza starts at depth 1. */
  private depth = 0;
  /** The current stanza's text so far, while one is open. */
  private stanza: string[] | null = null;
  /** Markup the last push ended inside, from its `<`: scanned again with the next push. */
  private carry = "";

  constructor(private readonly sink: SplitterSink) {}

  push(chunk: string): void {
    // Markup is only ever finished by a `>`: without one, the carry cannot end here, and
    // scanning it again for every chunk would be quadratic in a long tag.
    if (this.carry !== "" && !chunk.includes(">")) {
      this.carry += chunk;
      return;
    }
    const text = this.carry + chunk;
    this.carry = "";
    let from = 0; // the first character not handed on or stored yet
    let lt = text.indexOf("<");
    while (lt >= 0) {
      const markup = markupAt(text, lt);
      if (markup === null) {
        this.keep(text.slice(from, lt));
        this.carry = text.slice(lt);
        return;
      }
      const { end, kind } = markup;
      if (this.stanza !== null) {
        if (kind === "start") this.depth++;
        else if (kind === "end" && --this.depth === 1) {
          this.stanza.push(text.slice(from, end));
          const whole = this.stanza.length === 1 ? (this.stanza[0] as string) : this.stanza.join("");
          this.stanza = null;
          from = end;
          this.sink.stanza(whole);
        }
      } else {
        if (lt > from) this.sink.passThrough(text.slice(from, lt));
        from = lt;
        if (kind === "start" && this.depth === 1) {
          this.depth = 2;
          this.stanza = [];
        } else if (kind === "empty" && this.depth === 1) {
          from = end;
          this.sink.stanza(text.slice(lt, end));
        } else {
          // The declaration, the stream's header or end, or whatever the parser will refuse.
          if (kind === "start") this.depth++;
          else if (kind === "end") this.depth = Math.max(0, this.depth - 1);
          from = end;
          this.sink.passThrough(text.slice(lt, end));
        }
      }
      lt = text.indexOf("<", end);
    }
    this.keep(text.slice(from));
  }

  /** Text that ends nothing yet: part of the open stanza, or stream-level text to pass on. */
  private keep(text: string): void {
    if (text === "") return;
    if (this.stanza !== null) this.stanza.push(text);
    else this.sink.passThrough(text);
  }
}
