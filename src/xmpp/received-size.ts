/**
 * How many bytes each stanza took on the wire, noted as it is parsed (parser-feed.ts), so the
 * inbound size limit is judged on what the server sent without serialising the stanza again:
 * for a contribution of megabytes, writing it back out to count it cost the main thread more
 * than parsing it.
 */
import type { Element } from "./stanza.js";

const sizes = new WeakMap<object, number>();

/** Notes the UTF-8 size of the text a stanza was parsed from. */
export function noteReceivedBytes(stanza: object, bytes: number): void {
  sizes.set(stanza, bytes);
}

/** The UTF-8 size of the text the stanza was parsed from, or undefined for one that was not read off a stream (a forwarded one, say). */
export function receivedBytesOf(stanza: Element): number | undefined {
  return sizes.get(stanza);
}
