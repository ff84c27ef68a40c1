/**
 * commands/start.ts: a problem too large to quote in every request starts nothing and is
 * refused as `problem-too-large` (before the chooser or the sessions are asked); a start over
 * the live-session limits is refused as `session-limit` and said to the asker; a start asked
 * in 1:1 chat is told where the session runs; `debate` plans with the debating sessions and
 * says the chooser's note first.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startSession } from "../../src/commands/start.js";
import { problemFits } from "../../src/protocol/outbound.js";
import { ALICE, ROOM, fakeScope, runAs } from "./helpers.js";
import { commandWording } from "../../src/commands/wording.js";

const startWith = (how: "start" | "debate") => (command: { name: "start"; problem: string }, ctx: Parameters<typeof startSession>[2], scope: Parameters<typeof startSession>[3]) =>
  startSession(how, command.problem, ctx, scope);
const start = startWith("start");
const debate = startWith("debate");

describe("a problem too large to quote in every request starts nothing", () => {
  it("is refused as problem-too-large, said with its size and the limit, and neither chooser nor sessions are asked", async () => {
    const f = fakeScope({ maxStanzaBytes: 400 });
    const problem = "x".repeat(99); // 101 bytes as JSON; the limit is a quarter of a stanza, 100
    const said = await runAs(start, { name: "start", problem }, f.scope);
    expect(f.refused).toEqual(["problem-too-large"]);
    expect(said.map((s) => s.text)).toEqual([commandWording.problemTooLarge(101, 100)]);
    expect(f.calls).toEqual([]);
  });

  it("one that just fits starts", async () => {
    const f = fakeScope({ maxStanzaBytes: 400 });
    await runAs(start, { name: "start", problem: "x".repeat(98) }, f.scope);
    expect(f.refused).toEqual([]);
    expect(f.calls.map((c) => c.call)).toEqual(["planStart", "start"]);
  });

  it("starts exactly when the problem fits, for start and debate alike (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200, unit: "grapheme" }), fc.integer({ min: 40, max: 800 }), fc.boolean(), async (problem, maxStanzaBytes, isDebate) => {
        const f = fakeScope({ maxStanzaBytes });
        await runAs(isDebate ? debate : start, { name: "start", problem }, f.scope);
        const fits = problemFits(problem, maxStanzaBytes).ok;
        expect(f.calls.some((c) => c.call === "start")).toBe(fits);
        expect(f.refused).toEqual(fits ? [] : ["problem-too-large"]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("over the live-session limits nothing starts: session-limit is counted and the reason said", () => {
  const over = { ok: false as const, reason: "Too many live sessions." };

  it("in the room, to the asker by nick", async () => {
    const f = fakeScope({ started: over });
    const said = await runAs(start, { name: "start", problem: "Plan a trip" }, f.scope);
    expect(f.refused).toEqual(["session-limit"]);
    expect(said).toEqual([{ how: "to", target: expect.objectContaining({ kind: "room" }), text: "alice: Too many live sessions." }]);
  });

  it("in 1:1 chat, the reason alone", async () => {
    const f = fakeScope({ started: over });
    const said = await runAs(start, { name: "start", problem: "Plan a trip" }, f.scope, true);
    expect(f.refused).toEqual(["session-limit"]);
    expect(said.map((s) => s.text)).toEqual(["Too many live sessions."]);
  });
});

describe("a start that runs", () => {
  it("asked in 1:1 chat is told the session and the room it runs in", async () => {
    const f = fakeScope({ started: { ok: true, sessionId: "s42" } });
    const said = await runAs(start, { name: "start", problem: "Plan a trip" }, f.scope, true);
    expect(said.map((s) => s.text)).toEqual([`Started s42 in ${ROOM}.`]);
    expect(f.refused).toEqual([]);
  });

  it("asked in the room says nothing itself (the session's own request says it started)", async () => {
    const f = fakeScope();
    expect(await runAs(start, { name: "start", problem: "Plan a trip" }, f.scope)).toEqual([]);
  });

  it("starts the problem by the asker with the chooser's plan", async () => {
    const f = fakeScope();
    await runAs(start, { name: "start", problem: "Plan a trip" }, f.scope);
    expect(f.calls[0]).toEqual({ call: "planStart", args: [ALICE] });
    expect(f.calls[1]?.call).toBe("start");
    expect(f.calls[1]?.args.slice(0, 3)).toEqual(["Plan a trip", ALICE, f.plan]);
  });

  it("debate plans with the debating sessions and says the chooser's note in the primary room before starting", async () => {
    const f = fakeScope({ debateNote: "No Chair here." });
    const said = await runAs(debate, { name: "start", problem: "Which route?" }, f.scope);
    expect(said).toEqual([{ how: "sayIn", room: "primary", text: "No Chair here." }]);
    expect(f.calls.map((c) => c.call)).toEqual(["debatingSessions", "planDebate", "start"]);
    expect(f.calls[1]?.args).toEqual([ALICE, f.debating]);
  });
});
