/**
 * What reaches the XML parser of the connection: socket data, decoded as one UTF-8 stream,
 * and cut so that a chunk never ends inside a run of character data.
 *
 * Why: the parser @xmpp/client uses (ltx 3) skips through character data with
 * `indexOf("<")`, but when a chunk ends inside a text (a model part of 200 KB arrives in
 * chunks of 64 KB) the `<` is not there, and it calls `indexOf` again for every character
 * of the rest of the chunk: quadratic, 100–600 ms of main thread per large stanza, which
 * stalled the coordinator at every contribution part and at the room's echo of every model
 * part it sent. Holding back the text after the last `>` until the next chunk brings its
 * end makes parsing linear. Decoding with one decoder also keeps a character whose UTF-8
 * bytes straddle two chunks whole (a `toString` per chunk would mangle it).
 */
import { StringDecoder } from "node:string_decoder";

/** Splits what has arrived into what the parser may take now and what waits for more. */
export function cutAtLastTag(pending: string): { now: string; later: string } {
  const gt = pending.lastIndexOf(">");
  const lt = pending.lastIndexOf("<");
  // Inside a tag (or no tag yet, which text alone cannot end): a partial tag is short and
  // the parser keeps it; a text with no `<` after it waits whole.
  if (lt > gt) return { now: pending, later: "" };
  if (gt < 0) return { now: "", later: pending };
  return { now: pending.slice(0, gt + 1), later: pending.slice(gt + 1) };
}

/** The part of @xmpp/connection this module hooks: its socket data handler and parser. */
interface ConnectionInternals {
  _onData(data: Buffer): void;
  parser: { write(data: string): void } | null;
}

/**
 * Replaces the client's socket data handler (before it first connects) with one that feeds
 * its parser through `cutAtLastTag`. Each new parser (a stream restart) starts empty, and
 * so does each socket: nothing held back outlives the stream it came from.
 */
export function feedParserInWholeTexts(client: object): void {
  const connection = client as ConnectionInternals;
  let decoder = new StringDecoder("utf8");
  let parser: ConnectionInternals["parser"] = null;
  let held = "";
  connection._onData = (data: Buffer) => {
    if (connection.parser !== parser) {
      // A new stream (after authentication, or a reconnect): what was held was for the old one.
      parser = connection.parser;
      held = "";
      decoder = new StringDecoder("utf8");
    }
    const { now, later } = cutAtLastTag(held + decoder.write(data));
    held = later;
    if (now) parser?.write(now);
  };
}
