/**
 * compareSent (host/sent-check.ts): where, what, how many and in which order are compared
 * strictly; content by the whole stanza's digest, then by what it decides, so a stanza an
 * earlier build worded otherwise is a wording difference and one that decides otherwise a
 * mismatch. A record without a decisive digest is compared by its kind of stanza. Room lines
 * for people are wording, whether they are said at all included.
 */
import { describe, expect, it } from "vitest";
import type { Broadcast } from "../../src/session/step-io.js";
import { decisiveDigest } from "../../src/host/decisive-digest.js";
import { renderEffects, stanzaDigest, type RenderContext } from "../../src/host/outgoing.js";
import { compareSent, type ExpectedSend } from "../../src/host/sent-check.js";
import type { SentRecord } from "../../src/host/journal-records.js";

const AT = Date.UTC(2026, 0, 1);
const CTX: RenderContext = { room: "mfr@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 };
const request: Broadcast = { type: "ModelContributionRequest", sessionId: "s1", problemDescription: "Deliver 3 crates", round: 1, requestedAgents: null, issues: null };

/** What replay renders for one step: a request with `body`, then a room line. */
function step(eventSeq: number, body: string, line: string, message: Broadcast = request): ExpectedSend[] {
  const { outgoing } = renderEffects("s1", [{ kind: "broadcast", message, body }, { kind: "say", room: "primary", text: line }], AT, CTX);
  return outgoing.map((o, position) => ({ eventSeq, at: AT, position, digest: stanzaDigest(o.stanza), outgoing: o }));
}

/** The records the build that rendered `expected` wrote; `old`: as a build before decisive digests and build ids. */
function recordsOf(expected: readonly ExpectedSend[], build: string | undefined): SentRecord[] {
  return expected.map((e) => ({
    sessionId: "s1",
    eventSeq: e.eventSeq,
    position: e.position,
    at: e.at,
    digest: e.digest,
    what: e.outgoing.what,
    ...(build !== undefined ? { decisive: decisiveDigest(e.outgoing), build } : {}),
  }));
}

const now = step(5, "Session s1 started: asking every agent, open for 15 s.", "Session s1: waiting for contributions.");

describe("compareSent", () => {
  it("finds nothing where replay renders what was sent", () => {
    expect(compareSent(now, recordsOf(now, "0.1.0+new"), 0)).toEqual({ matched: 2, mismatches: [], wording: [] });
  });

  it("counts stanzas a build worded otherwise as wording, with that build", () => {
    const then = step(5, "Session s1 started. Asking all agents.", "s1: contributions, please.");
    const found = compareSent(now, recordsOf(then, "0.1.0+old"), 0);
    expect(found.mismatches).toEqual([]);
    expect(found.wording).toEqual([
      { eventSeq: 5, position: 0, what: "ModelContributionRequest", build: "0.1.0+old", decisiveCompared: true },
      { eventSeq: 5, position: 1, what: "say primary", build: "0.1.0+old", decisiveCompared: true },
    ]);
  });

  it("finds a stanza that decides otherwise", () => {
    const then = step(5, "Session s1 started.", "Session s1: waiting for contributions.", { ...request, round: 2, requestedAgents: ["alice"] });
    expect(compareSent(now, recordsOf(then, "0.1.0+old"), 0)).toEqual({
      matched: 1,
      mismatches: [{ kind: "different", eventSeq: 5, position: 0, what: "ModelContributionRequest", recorded: "ModelContributionRequest", by: "decisive" }],
      wording: [],
    });
  });

  it("compares a record of a build that kept no decisive digest by its kind, and counts other content as that build's wording", () => {
    const then = step(5, "Session s1 started.", "s1: go.", { ...request, round: 2, requestedAgents: ["alice"] });
    const found = compareSent(now, recordsOf(then, undefined), 0);
    expect(found.mismatches).toEqual([]);
    expect(found.wording.map((w) => [w.what, w.build, w.decisiveCompared])).toEqual([
      ["ModelContributionRequest", undefined, false],
      ["say primary", undefined, false],
    ]);
    const otherKind = recordsOf(then, undefined).map((r) => (r.position === 0 ? { ...r, what: "SolutionRequest" } : r));
    expect(compareSent(now, otherKind, 0).mismatches).toEqual([{ kind: "different", eventSeq: 5, position: 0, what: "ModelContributionRequest", recorded: "SolutionRequest", by: "kind" }]);
  });

  it("keeps missing, unexpected and sent-twice stanzas mismatches, whichever build wrote the record", () => {
    for (const build of ["0.1.0+old", undefined]) {
      const records = recordsOf(now, build);
      expect(compareSent(now, records.slice(1), 0).mismatches.map((m) => m.kind)).toEqual(["missing"]);
      expect(compareSent(now, [...records, { ...records[0]!, eventSeq: 9 }], 0).mismatches.map((m) => m.kind)).toEqual(["unexpected"]);
      expect(compareSent(now, [...records, records[1]!], 0).mismatches.map((m) => m.kind)).toEqual(["sent-twice"]);
      // Two protocol messages of a step are paired in order: a swapped order is a mismatch.
      const two = step(6, "Asked.", "Asked.", { ...request, round: 2 }).slice(0, 1).concat(step(6, "Again.", "x", { ...request, round: 3 }).slice(0, 1).map((e) => ({ ...e, position: 1 })));
      const swapped = recordsOf(two, build).map((r) => ({ ...r, position: 1 - r.position }));
      expect(compareSent(two, swapped, 0).mismatches.map((m) => m.kind)).toEqual(build === undefined ? [] : ["different", "different"]);
    }
  });

  it("counts a room line said by one side only as wording, and pairs the other stanzas around it", () => {
    // An earlier build said the outcome again in a line after the protocol message; this one does not.
    const then = recordsOf(now, undefined);
    const found = compareSent(now.slice(0, 1), then, 0);
    expect(found.mismatches).toEqual([]);
    expect(found.wording).toEqual([{ eventSeq: 5, position: 1, what: "say primary", build: undefined, decisiveCompared: false, said: "live only" }]);
    // A build that says a line before the protocol message: the message is still paired with the message.
    const lineFirst = renderEffects("s1", [{ kind: "say", room: "primary", text: "Starting." }, { kind: "broadcast", message: request, body: "Session s1 started: asking every agent, open for 15 s." }], AT, CTX).outgoing;
    const replayed = lineFirst.map((o, position) => ({ eventSeq: 5, at: AT, position, digest: stanzaDigest(o.stanza), outgoing: o }));
    const sent = recordsOf(now, "0.1.0+old").slice(0, 1);
    const paired = compareSent(replayed, sent, 0);
    expect(paired.matched).toBe(1);
    expect(paired.mismatches).toEqual([]);
    expect(paired.wording).toEqual([{ eventSeq: 5, position: 0, what: "say primary", build: "0.1.0+old", decisiveCompared: false, said: "by replay only" }]);
  });

  it("keeps a tell, an answer to one participant, strict", () => {
    const told = renderEffects("s1", [{ kind: "tell", nick: "alice", text: "Your contribution is in." }], AT, CTX).outgoing.map((o, position) => ({ eventSeq: 7, at: AT, position, digest: stanzaDigest(o.stanza), outgoing: o }));
    expect(compareSent(told, [], 0).mismatches.map((m) => m.kind)).toEqual(["missing"]);
    expect(compareSent([], recordsOf(told, undefined), 0).mismatches.map((m) => m.kind)).toEqual(["unexpected"]);
  });

  it("leaves out events that predate the record", () => {
    expect(compareSent(now, [], 5)).toEqual({ matched: 0, mismatches: [], wording: [] });
  });
});
