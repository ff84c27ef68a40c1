/**
 * commands/use.ts: `use` answers the clarification waiting for this requester (as the core
 * sees them, standing included), with their choice; with none waiting it says so and nothing
 * reaches the core.
 */
import { describe, expect, it } from "vitest";
import { use } from "../../src/commands/use.js";
import { ALICE, fakeScope, runAs } from "./helpers.js";
import { commandWording } from "../../src/commands/wording.js";

const MODERATOR = { ...ALICE, standing: "moderator" as const };
const applied = (calls: Array<{ call: string; args: unknown[] }>) => calls.filter((c) => c.call === "apply").map((c) => c.args[0]);

describe("use: answers the clarification waiting for this requester", () => {
  it("the choice goes to the session waiting for the requester, from the requester", async () => {
    const f = fakeScope({ clarification: "s3" });
    expect(await runAs(use, { name: "use", choice: [1, 3] }, f.scope, true, MODERATOR)).toEqual([]);
    expect(f.calls.find((c) => c.call === "clarificationFor")?.args).toEqual([MODERATOR]);
    expect(applied(f.calls)).toEqual([{ kind: "choice", sessionId: "s3", by: MODERATOR, choice: [1, 3] }]);
  });

  it("with no clarification waiting, says so and the core hears nothing", async () => {
    const f = fakeScope();
    expect((await runAs(use, { name: "use", choice: "all" }, f.scope)).map((s) => s.text)).toEqual([commandWording.noClarification()]);
    expect(applied(f.calls)).toEqual([]);
  });
});
