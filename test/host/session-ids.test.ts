/**
 * Session ids come from the room. A name every object inherits ("constructor", "toString",
 * "__proto__", …) is no session: it is answered as unknown, never logged, never stepped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { SessionHost, type ModelService } from "../../src/host/session-host.js";
import { emptySessions, sessionIn, step } from "../../src/session/step.js";
import type { Participant } from "../../src/session/types.js";
import { SessionStore } from "../../src/store/session-store.js";
import type { Element } from "../../src/xmpp/stanza.js";

const INHERITED = [...Object.getOwnPropertyNames(Object.prototype), "__proto__"];
const NO_MODELS: ModelService = {
  check: () => Promise.reject(new Error("a made-up session's contribution was checked")),
  analyse: () => Promise.reject(new Error("not used")),
  verify: () => Promise.reject(new Error("a made-up session's plan was checked")),
};
const MALLORY: Participant = { nick: "mallory", jid: undefined, identity: "occupant:MALLORY" };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("session ids a room member makes up", () => {
  it("the core finds no session under an inherited name", () => {
    for (const id of INHERITED) {
      expect(sessionIn(emptySessions(), id)).toBeUndefined();
      const { state, effects } = step(emptySessions(), { kind: "cancel", sessionId: id, by: MALLORY }, 0);
      expect(Object.keys(state.byId)).toEqual([]);
      expect(effects.map((e) => e.kind)).toEqual(["log"]);
    }
  });

  it("the host answers them as unknown and logs nothing, with a session live beside them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-ids-"));
    dirs.push(dir);
    const store = SessionStore.open(dir);
    const sent: Element[] = [];
    const errors: string[] = [];
    const host = new SessionHost({
      render: { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 },
      settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 },
      maxLiveSessions: 5,
      models: NO_MODELS,
      outlet: { send: async (stanza) => void sent.push(stanza) },
      log: pino({ level: "error" }, { write: (line: string) => void errors.push(line) }),
      now: () => 1_000,
      journal: store,
    });
    try {
      const live = host.start("deliver the goods", { nick: "pat", jid: undefined, identity: "occupant:PAT" }, { expectedAgents: ["ada"] });
      if (!live.ok) throw new Error(live.reason);
      const logged = store.liveEvents().length;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...INHERITED), fc.constantFrom("contribution", "proposal", "cancel"), async (id, kind) => {
          sent.length = 0;
          if (kind === "contribution") await host.contribute(id, MALLORY, "<#a> a <#B> .");
          else if (kind === "proposal") await host.propose(id, MALLORY, { success: true, message: "done" });
          else expect(host.cancel(id, MALLORY)).toBe(false);
          // Replies go out in order, one send after another: let the queue run.
          for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
          expect(store.liveEvents().length).toBe(logged);
          expect(store.eventsOf(id)).toEqual([]);
          expect(host.session(id)).toBeUndefined();
          expect(errors).toEqual([]);
          if (kind !== "cancel") expect(sent.map((s) => s.getChildText("body") ?? "").join("\n")).toContain(`There is no session`);
        }),
        { numRuns: 60 },
      );
      expect(host.session(live.sessionId)?.phase).toBe("collecting");
    } finally {
      await host.close();
      store.close();
    }
  });
});
