import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirectedPresence } from "../../src/xmpp/directed-presence.js";

describe("DirectedPresence: who has our presence on this stream, to tell at a stop", () => {
  it("remembers each full JID once, least recently answered first, until the stream is forgotten", () => {
    const presence = new DirectedPresence();
    presence.sent("alice@example.org/phone");
    presence.sent("bob@example.org/a");
    // The domain and the local part are not case-sensitive; the resource is, and another resource is another client.
    presence.sent("Alice@Example.org/phone");
    presence.sent("alice@example.org/Phone");
    expect(presence.drain()).toEqual(["bob@example.org/a", "alice@example.org/phone", "alice@example.org/Phone"]);
    expect(presence.size).toBe(0);
    presence.sent("bob@example.org/a");
    presence.forget();
    expect(presence.drain()).toEqual([]);
  });

  it("stays within its capacity, forgetting the least recently answered", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (people, capacity) => {
        const presence = new DirectedPresence(capacity);
        const recent: number[] = [];
        for (const p of people) {
          presence.sent(`p${p}@example.org/r`);
          const at = recent.indexOf(p);
          if (at >= 0) recent.splice(at, 1);
          recent.push(p);
          if (recent.length > capacity) recent.shift();
          expect(presence.size).toBeLessThanOrEqual(capacity);
        }
        expect(presence.drain()).toEqual(recent.map((p) => `p${p}@example.org/r`));
      }),
    );
  });
});
