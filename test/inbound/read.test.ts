/** The reading stage: what a message asks, read once, a Chair's debate line before any command. */
import { describe, expect, it } from "vitest";
import { readMessage, type ReadOptions } from "../../src/inbound/read.js";
import { LINGUE, Mode } from "../../src/base/vocab.js";
import type { Session } from "../../src/session/types.js";
import { xml } from "../../src/xmpp/stanza.js";
import { contextOf, keptLog, keptOutlet, roomLine, roomsWith, PRIMARY } from "./helpers.js";

const rooms = roomsWith({ nick: "alice" }, { nick: "Chair" });

function options(debating: Session[] = [], debateLine = false): ReadOptions {
  return {
    primaryRoom: PRIMARY,
    ownNick: () => "Coordinator",
    sessions: { debatingSessions: () => debating },
    chooser: { debateInput: (from, _body, sessions) => (debateLine ? { kind: "debate", sessionId: sessions[0]!.id, from, line: { kind: "started" } } : null) as never },
    log: keptLog().log,
  };
}

const read = (body: string, o = options()) => readMessage(contextOf(roomLine("alice", body), rooms, keptOutlet()), o).reading;

describe("read", () => {
  it("tells a command, a command misused, a misspelt command and chatter apart", () => {
    expect(read("mfr-cancel s1")).toEqual({ kind: "command", command: { name: "cancel", sessionId: "s1" } });
    expect(read("mfr-cancel")).toMatchObject({ kind: "misuse", misuse: { name: "cancel" } });
    expect(read("mfr-lst")).toMatchObject({ kind: "unknown", unknown: { word: "mfr-lst" } });
    expect(read("hello everyone")).toEqual({ kind: "chatter" });
  });

  it("takes a line in the primary room as the Chair's debate line while a debate runs, before any command", () => {
    const debating = [{ id: "s1" } as Session];
    expect(read("use 1,3", options(debating, true))).toMatchObject({ kind: "debate-line", input: { sessionId: "s1" } });
    expect(read("use 1,3", options(debating, false))).toMatchObject({ kind: "command" });
  });

  it("reads a contribution's first part as evidence of a contribution, a later part as other, and a proposal as a proposal", () => {
    const protocol = (mode: string, content: string, siblings: Record<string, string> = {}) =>
      readMessage(
        contextOf(xml("message", { from: `${PRIMARY}/alice`, type: "groupchat", id: "p" }, xml("payload", { xmlns: LINGUE, mode }, content), ...Object.entries(siblings).map(([k, v]) => xml(k, { xmlns: LINGUE }, v))), rooms, keptOutlet()),
        options(),
      ).reading;
    expect(protocol(Mode.ModelFirstRDF, "<a> <b> <c> .", { sessionId: "s1", modelPart: "1/3" })).toMatchObject({ protocol: { mode: "contribution", sessionId: "s1", modelPart: "1/3" }, evidence: "contribution" });
    expect(protocol(Mode.ModelFirstRDF, "<a> <b> <c> .", { sessionId: "s1", modelPart: "2/3" })).toMatchObject({ evidence: "other" });
    expect(protocol(Mode.ModelNegotiation, JSON.stringify({ messageType: "SolutionProposal", sessionId: "s1", solution: { success: true, message: "", plan: [], bindings: [] } }))).toMatchObject({ protocol: { mode: "negotiation" }, evidence: "proposal" });
    expect(protocol("urn:other", "x")).toMatchObject({ protocol: { mode: "other" }, evidence: "other" });
  });
});
