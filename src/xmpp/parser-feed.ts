/**
 * What reaches the XML parser of a connection: the socket's bytes, decoded as one UTF-8
 * stream, cut into whole stanzas (stanza-splitter.ts says why the parser needs them whole),
 * less the stanzas the owner says it will not read; each stanza parsed carries the size of
 * its text (received-size.ts).
 *
 * Decoding with one decoder keeps a character whose UTF-8 bytes straddle two chunks whole
 * (a `toString` per chunk would mangle it).
 */
import { StringDecoder } from "node:string_decoder";
import { StanzaSplitter } from "./stanza-splitter.js";
import { noteReceivedBytes } from "./received-size.js";

/** The part of @xmpp/connection this module hooks: its socket data handler and parser. */
interface ConnectionInternals {
  _onData(data: Buffer): void;
  parser: { write(data: string): void; prependListener?(event: "element", listener: (element: object) => void): void } | null;
}

export interface ParserFeedOptions {
  /**
   * Called with each stanza's text before it is parsed; true drops it unparsed. It sees the
   * stanza exactly as the server sent it, so a decision on its start tag (raw-stanza.ts)
   * is a decision on what the server wrote there.
   */
  drop?: (stanza: string) => boolean;
}

/**
 * Replaces the client's socket data handler (before it first connects) with one that feeds
 * its parser through a StanzaSplitter. Each new parser (a stream restart) starts with a new
 * splitter and decoder: nothing held back outlives the stream it came from.
 */
export function feedParserWholeStanzas(client: object, options: ParserFeedOptions = {}): void {
  const connection = client as ConnectionInternals;
  const drop = options.drop;
  let decoder = new StringDecoder("utf8");
  let parser: ConnectionInternals["parser"] = null;
  let splitter = new StanzaSplitter({ passThrough: () => undefined, stanza: () => undefined });
  connection._onData = (data: Buffer) => {
    if (connection.parser !== parser) {
      // A new stream (after authentication, or a reconnect): what was held was for the old one.
      const current = connection.parser;
      parser = current;
      // First of the parser's listeners, so the size is on the stanza before anyone reads it.
      let writing: number | undefined;
      current?.prependListener?.("element", (element) => {
        if (writing !== undefined) noteReceivedBytes(element, writing);
      });
      splitter = new StanzaSplitter({
        passThrough: (text) => current?.write(text),
        stanza: (text) => {
          if (drop?.(text) === true) return;
          writing = Buffer.byteLength(text, "utf8");
          try {
            current?.write(text);
          } finally {
            writing = undefined;
          }
        },
      });
      decoder = new StringDecoder("utf8");
    }
    splitter.push(decoder.write(data));
  };
}
