/**
 * What reaches the XML parser of the connection: socket data, decoded as one UTF-8 stream,
 * and cut so that the parser never gets a piece that ends inside a text or a tag.
 *
 * Why: the parser @xmpp/client uses (ltx 3) skips through character data with
 * `indexOf("<")`, but when a chunk ends inside a text (a model part of 200 KB arrives in
 * chunks of 64 KB) the `<` is not there, and it calls `indexOf` again for every character
 * of the rest of the chunk: quadratic, 100–600 ms of main thread per large stanza, which
 * stalled the coordinator at every contribution part and at the room's echo of every model
 * part it sent. Holding back what follows the last `>` until a chunk brings its end makes
 * parsing linear (and spares ltx its other chunk-boundary slips, such as a `?>` cut in two). Decoding with one decoder also keeps a character whose UTF-8
 * bytes straddle two chunks whole (a `toString` per chunk would mangle it).
 */
import { StringDecoder } from "node:string_decoder";

/**
 * Feeds decoded text to a parser in pieces that end with a `>`: a text or a tag the chunk
 * does not finish yet waits for the chunk that does (neither could be completed before it
 * anyway, so nothing complete is ever held). Each chunk is scanned once: what is held is
 * only appended to, never searched again.
 */
export class TextFeed {
  private held = "";

  constructor(private readonly write: (text: string) => void) {}

  push(chunk: string): void {
    const gt = chunk.lastIndexOf(">");
    const lt = chunk.lastIndexOf("<");
    if (gt < 0 && lt < 0) {
      this.held += chunk;
      return;
    }
    // After the last `>`: a text (wait for its end); from a later `<`: a tag not closed yet.
    const cut = gt > lt ? gt + 1 : lt;
    const text = this.held + chunk.slice(0, cut);
    this.held = chunk.slice(cut);
    if (text) this.write(text);
  }
}

/** The part of @xmpp/connection this module hooks: its socket data handler and parser. */
interface ConnectionInternals {
  _onData(data: Buffer): void;
  parser: { write(data: string): void } | null;
}

/**
 * Replaces the client's socket data handler (before it first connects) with one that feeds
 * its parser through a `TextFeed`. Each new parser (a stream restart) starts empty, and
 * so does each socket: nothing held back outlives the stream it came from.
 */
export function feedParserInWholeTexts(client: object): void {
  const connection = client as ConnectionInternals;
  let decoder = new StringDecoder("utf8");
  let parser: ConnectionInternals["parser"] = null;
  let feed = new TextFeed(() => undefined);
  connection._onData = (data: Buffer) => {
    if (connection.parser !== parser) {
      // A new stream (after authentication, or a reconnect): what was held was for the old one.
      const current = connection.parser;
      parser = current;
      feed = new TextFeed((text) => current?.write(text));
      decoder = new StringDecoder("utf8");
    }
    feed.push(decoder.write(data));
  };
}
