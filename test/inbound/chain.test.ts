/**
 * The composed chain: stages run in order, each on what the one before handed on; a stage
 * that does not call `next` ends the walk; `progress` names the stage a failure was in.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Chain, type Progress, type Stage } from "../../src/inbound/chain.js";

type Name = "a" | "b" | "c" | "d";
const NAMES: readonly Name[] = ["a", "b", "c", "d"];

describe("Chain", () => {
  it("runs the stages in order until one stops, each on its predecessor's output", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), async (goesOn) => {
        const ran: string[] = [];
        let chain = Chain.of<Name, number>() as Chain<Name, number, number>;
        goesOn.forEach((on, index) => {
          const stage: Stage<number, number> = async (n, next) => {
            ran.push(`${NAMES[index]}:${n}`);
            if (on) await next(n + 1);
          };
          chain = chain.then(NAMES[index]!, stage);
        });
        const progress: Progress<Name> = { stage: "a" };
        await chain.end()(0, progress);
        const stopsAt = goesOn.indexOf(false);
        const expected = goesOn.slice(0, stopsAt === -1 ? goesOn.length : stopsAt + 1).map((_, index) => `${NAMES[index]}:${index}`);
        expect(ran).toEqual(expected);
        expect(progress.stage).toBe(NAMES[expected.length - 1]);
      }),
    );
  });

  it("lets a stage act after the rest is done, and names the stage a failure came from", async () => {
    const order: string[] = [];
    const walk = Chain.of<Name, string>()
      .then("a", async (text, next: (length: number) => Promise<void>) => {
        try {
          await next(text.length);
        } finally {
          order.push("a done");
        }
      })
      .then("b", async (length: number, next: (ok: boolean) => Promise<void>) => {
        order.push(`b ${length}`);
        await next(length > 3);
      })
      .then("c", async (ok: boolean) => {
        order.push(`c ${ok}`);
        if (ok) throw new Error("too long");
      })
      .end();
    const progress: Progress<Name> = { stage: "a" };
    await walk("ab", progress);
    expect(order).toEqual(["b 2", "c false", "a done"]);
    order.length = 0;
    await expect(walk("abcd", progress)).rejects.toThrow("too long");
    expect(order).toEqual(["b 4", "c true", "a done"]);
    expect(progress.stage).toBe("c");
  });
});
