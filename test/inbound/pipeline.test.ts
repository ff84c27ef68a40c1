/** The pipeline: a stage that throws is counted and logged with the stanza's id, answers at most once, and the next message goes through. */
import { describe, expect, it } from "vitest";
import { InboundPipeline } from "../../src/inbound/pipeline.js";
import type { InboundStage } from "../../src/ops/inbound-stages.js";
import { MemoryHeardLog } from "../../src/host/heard.js";
import { keptLog, keptOutlet, PRIMARY, roomLine, roomsWith } from "./helpers.js";

function pipeline(debatingSessions: () => never[]) {
  const { log, lines } = keptLog();
  const outlet = keptOutlet();
  const errors: InboundStage[] = [];
  const rooms = roomsWith({ nick: "alice" });
  const p = new InboundPipeline({
    config: { room: PRIMARY, nick: "Coordinator", limits: { messagesPerMinute: 30, maxInboundBytes: 10_000, maxStanzaBytes: 60_000 } as never, protocolAllowList: [], commandAllowList: [] },
    log,
    now: () => 0,
    rooms,
    ownBareJid: () => "coordinator@localhost",
    hasDirectLine: false,
    heard: new MemoryHeardLog(),
    readonlyStore: () => false,
    ourRooms: { isProtocolRoom: (room: string) => room === PRIMARY },
    sessions: { debatingSessions, listText: () => "No sessions." } as never,
    chooser: { isAgent: () => false, commandFrom: () => undefined } as never,
    metrics: { refused: () => undefined, inboundError: (stage) => void errors.push(stage) },
    outlet,
  });
  return { p, lines, outlet, errors };
}

describe("the inbound pipeline", () => {
  it("catches what a stage throws: counted by stage, logged with the id, nothing answered, and the next message handled", async () => {
    let fail = true;
    const { p, lines, outlet, errors } = pipeline(() => {
      if (fail) throw new Error("the host is gone");
      return [];
    });
    expect(await p.take({ stanza: roomLine("alice", "mfr-list", [], "bad-1"), line: "room-connection" })).toBe("taken");
    expect(errors).toEqual(["read"]);
    expect(lines.find((l) => l.level === 50)).toMatchObject({ msg: "failed to handle a message", stage: "read", id: "bad-1" });
    expect(outlet.said).toHaveLength(0);
    fail = false;
    await p.take({ stanza: roomLine("alice", "mfr-list", [], "good-1"), line: "room-connection" });
    expect(outlet.said.map((s) => s.text)).toEqual([expect.stringContaining("No sessions.")]);
    // The failed message was still noted as taken: given back again, it is a duplicate.
    expect(await p.take({ stanza: roomLine("alice", "mfr-list", [], "bad-1"), line: "room-connection" })).toBe("duplicate");
  });
});
