/**
 * commands/approval.ts: approve and reject only find the session and hand the core the
 * decision from the requester as the core sees them (standing included); the core decides who
 * may. A session that does not exist is named back, and nothing reaches the core.
 */
import { describe, expect, it } from "vitest";
import { answerApproval } from "../../src/commands/approval.js";
import { ALICE, fakeScope, runAs } from "./helpers.js";
import { commandWording } from "../../src/commands/wording.js";

const MODERATOR = { ...ALICE, standing: "moderator" as const };
const approve = (approved: boolean) => (command: { name: "approve"; sessionId: string }, ...rest: [Parameters<typeof answerApproval>[2], Parameters<typeof answerApproval>[3]]) =>
  answerApproval(command.sessionId, approved, ...rest);
const applied = (calls: Array<{ call: string; args: unknown[] }>) => calls.filter((c) => c.call === "apply").map((c) => c.args[0]);

describe("approve and reject: the requester's decision, to the core", () => {
  it("an approval or rejection of an existing session goes to the core from the requester, standing and all, and nothing is said", async () => {
    for (const approved of [true, false]) {
      const f = fakeScope({ sessions: ["s1"] });
      expect(await runAs(approve(approved), { name: "approve", sessionId: "s1" }, f.scope, false, MODERATOR)).toEqual([]);
      expect(applied(f.calls)).toEqual([{ kind: "approval", sessionId: "s1", by: MODERATOR, approved }]);
    }
  });

  it("a session that does not exist is named back, in the room or in 1:1 chat, and the core hears nothing", async () => {
    for (const direct of [false, true]) {
      const f = fakeScope({ sessions: ["s1"] });
      const said = await runAs(approve(true), { name: "approve", sessionId: "s9" }, f.scope, direct);
      expect(said.map((s) => s.text)).toEqual([commandWording.noSuchSession("s9")]);
      expect(applied(f.calls)).toEqual([]);
    }
  });
});
