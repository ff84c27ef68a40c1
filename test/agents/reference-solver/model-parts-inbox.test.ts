import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ModelPartsInbox, readPartLabel } from "../../../src/agents/reference-solver/model-parts-inbox.js";

describe("model parts before a SolutionRequest", () => {
  it("assembles parts 1..n in order, whatever order they arrive in, once all are there", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))), ([n, order]) => {
        const inbox = new ModelPartsInbox();
        // Part 1 starts a model over, so it comes first; the rest in any order.
        const rest = order.filter((i) => i !== 0);
        inbox.add("Coordinator", "s1", `1/${n}`, "part 1");
        for (const i of rest.slice(0, -1)) inbox.add("Coordinator", "s1", `${i + 1}/${n}`, `part ${i + 1}`);
        if (rest.length > 0) {
          expect(inbox.take("Coordinator", "s1", n)).toBeNull();
          const last = rest[rest.length - 1] as number;
          inbox.add("Coordinator", "s1", `${last + 1}/${n}`, `part ${last + 1}`);
        }
        expect(inbox.take("Coordinator", "s1", n)).toEqual(Array.from({ length: n }, (_, i) => `part ${i + 1}`));
        expect(inbox.take("Coordinator", "s1", n)).toBeNull();
      }),
    );
  });

  it("keeps senders and sessions apart, and a new part 1/n starts over", () => {
    const inbox = new ModelPartsInbox();
    inbox.add("Coordinator", "s1", "1/2", "a");
    inbox.add("mallory", "s1", "2/2", "forged");
    expect(inbox.take("Coordinator", "s1", 2)).toBeNull();
    inbox.add("Coordinator", "s1", "1/2", "a again");
    inbox.add("Coordinator", "s1", "2/2", "b");
    expect(inbox.take("Coordinator", "s1", 2)).toEqual(["a again", "b"]);
  });

  it("refuses bad labels and models over the byte bound, and forgets the oldest sessions past the count bound", () => {
    const inbox = new ModelPartsInbox({ maxSessions: 2, maxModelBytes: 10 });
    expect(inbox.add("C", "s1", "0/2", "x")).toBe(false);
    expect(inbox.add("C", "s1", "3/2", "x")).toBe(false);
    expect(inbox.add("C", "s1", "one of two", "x")).toBe(false);
    expect(inbox.add("C", "s1", "1/1", "12345678901")).toBe(false);
    for (const s of ["a", "b", "c"]) inbox.add("C", s, "1/1", s);
    expect(inbox.take("C", "a", 1)).toBeNull();
    expect(inbox.take("C", "c", 1)).toEqual(["c"]);
    expect(readPartLabel(" 2 / 5 ")).toEqual({ k: 2, n: 5 });
  });
});
