/**
 * Reading a stanza's start tag from its text, before (or instead of) parsing it: enough to
 * decide whether the stanza is worth parsing at all (parser-feed.ts).
 */

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** An attribute value or a text as XML means it: the predefined entities and character references resolved. */
export function unescapeXml(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    // Own entries only: `&constructor;` is no entity, not Object.prototype's constructor.
    return Object.hasOwn(ENTITIES, ref) ? ENTITIES[ref]! : whole;
  });
}

/**
 * The element name and attributes of the tag a stanza's text starts with, or null when it
 * does not start with a well-formed tag (the parser will say what is wrong with it).
 */
export function startTag(stanza: string): { name: string; attrs: Record<string, string> } | null {
  const head = /^<([^\s/>]+)/.exec(stanza);
  if (!head) return null;
  const attrs: Record<string, string> = {};
  const attribute = /\s*([^\s=/>]+)\s*=\s*(?:'([^']*)'|"([^"]*)")|\s*(\/?>)/y;
  attribute.lastIndex = head[0].length;
  for (;;) {
    const m = attribute.exec(stanza);
    if (!m) return null;
    if (m[4] !== undefined) return { name: head[1] as string, attrs };
    attrs[m[1] as string] = unescapeXml(m[2] ?? m[3] ?? "");
  }
}
