/**
 * commands/cancel.ts: the core decides who may cancel and says so; the handler asks it from the
 * requester (standing included) and only names back a session that does not exist.
 */
import { describe, expect, it } from "vitest";
import { cancel } from "../../src/commands/cancel.js";
import { ALICE, fakeScope, runAs } from "./helpers.js";
import { commandWording } from "../../src/commands/wording.js";

const MODERATOR = { ...ALICE, standing: "moderator" as const };

describe("cancel: the core decides who may and says so; the handler only names a missing session", () => {
  it("asks the core to cancel from the requester, and says nothing itself when the session exists", async () => {
    const f = fakeScope({ cancels: true });
    expect(await runAs(cancel, { name: "cancel", sessionId: "s2" }, f.scope, false, MODERATOR)).toEqual([]);
    const asked = f.calls.find((c) => c.call === "cancel");
    expect(asked?.args.slice(0, 2)).toEqual(["s2", MODERATOR]);
  });

  it("a session that does not exist is named back", async () => {
    const f = fakeScope({ cancels: false });
    expect((await runAs(cancel, { name: "cancel", sessionId: "nope" }, f.scope)).map((s) => s.text)).toEqual([commandWording.noSuchSession("nope")]);
  });
});
