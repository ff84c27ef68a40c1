/**
 * The host's side of contributions in parts: only the complete union is an input of the core
 * (so only it is logged and replayed), a broken part is a refused contribution naming the
 * part, and a session that stops taking contributions drops its incomplete ones and tells
 * their senders — without logging anything of it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { joinParts } from "../../src/host/contribution-parts.js";
import type { CheckAnswer } from "../../src/model-workers/model-worker.js";
import { SessionHost, type ModelService } from "../../src/host/session-host.js";
import { verifyStore } from "../../src/host/sent-check.js";
import type { RenderContext } from "../../src/host/outgoing.js";
import type { Participant } from "../../src/session/types.js";
import { SessionStore } from "../../src/store/session-store.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { sessionBaseIri } from "../../src/base/vocab.js";

const RENDER: RenderContext = { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 };
const COUNTS = { entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 0 };
/** A checker that counts one triple per line ending in " ." (directives aside) and calls "BROKEN" a syntax error at line 2. */
const MODELS: ModelService = {
  check: async ({ turtle }): Promise<CheckAnswer> => {
    if (turtle.includes("BROKEN")) return { ok: true, check: { ok: false, error: { message: "Unexpected end of input", line: 2, column: 5 } } };
    const triples = turtle.split("\n").filter((l) => l.endsWith(" .") && !l.startsWith("@")).length;
    return { ok: true, check: { ok: true, tripleCount: triples, counts: { ...COUNTS, triples } } };
  },
  analyse: () => new Promise(() => undefined),
  verify: () => Promise.reject(new Error("unused")),
};
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const modeler: Participant = { nick: "modeler", jid: undefined, identity: "occupant:MODELER" };
const impostor: Participant = { nick: "modeler", jid: undefined, identity: "occupant:OTHER" };

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "mfr-parts-"));
  dirs.push(dir);
  const store = SessionStore.open(dir);
  const sent: Element[] = [];
  let now = 1_000;
  const host = new SessionHost({
    render: RENDER,
    settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 },
    maxLiveSessions: 5,
    models: MODELS,
    outlet: { send: async (stanza) => void sent.push(stanza) },
    log: pino({ level: "silent" }),
    now: () => (now += 10),
    journal: store,
  });
  const started = host.start("Move the crates", { nick: "dana", jid: "dana@localhost" }, { expectedAgents: [] });
  if (!started.ok) throw new Error(started.reason);
  const privately = () => sent.filter((s) => s.attrs.type === "chat").map((s) => String(s.getChildText("body")));
  return { dir, store, host, sent, sessionId: started.sessionId, privately };
}

describe("SessionHost: contributions in parts", () => {
  it("logs only the complete union, as one contribution, which replays to what was sent", async () => {
    const { dir, store, host, sessionId, privately } = setup();
    const parts = ["<#a> a <#T> .", "<#b> a <#T> .", "<#c> a <#T> ."];
    await host.contributePart(sessionId, modeler, { k: 1, n: 3 }, parts[0] ?? "");
    await host.contributePart(sessionId, impostor, { k: 2, n: 3 }, "<#x> a <#T> .");
    await host.contributePart(sessionId, modeler, { k: 3, n: 3 }, parts[2] ?? "");
    expect(host.session(sessionId)?.contributions).toEqual({});
    await host.contributePart(sessionId, modeler, { k: 2, n: 3 }, parts[1] ?? "");
    await host.close();

    const contribution = host.session(sessionId)?.contributions.modeler;
    expect(contribution?.turtle).toBe(joinParts(parts, sessionBaseIri(sessionId)));
    expect(contribution?.tripleCount).toBe(3);
    const logged = store.liveEvents().filter((e) => e.input.kind === "contribution");
    expect(logged).toHaveLength(1);
    expect(logged[0]?.input).toMatchObject({ kind: "contribution", parts: { n: 3 }, from: { identity: "occupant:MODELER" } });
    expect(privately()).toEqual([
      `Part 2/3 of your contribution to ${sessionId} was not used: no part 1/3 came before it (it never came, it was refused, or I restarted, which loses contributions still incomplete). Its other parts are ignored until a new part 1; send the contribution again from part 1.`,
      `Contribution received for ${sessionId} (3 parts): 3 triples (1 entity).`,
    ]);
    store.close();
    const reopened = SessionStore.open(dir);
    const verified = verifyStore(reopened, RENDER);
    reopened.close();
    expect(verified.map((c) => c.sessionId)).toEqual([sessionId]);
    expect(verified.flatMap((c) => c.mismatches)).toEqual([]);
    expect(verified[0]?.matched).toBeGreaterThan(1);
  });

  it("a broken part is a refused contribution naming the part; the rest of its series is quiet", async () => {
    const { store, host, sessionId, privately } = setup();
    await host.contributePart(sessionId, modeler, { k: 1, n: 3 }, "<#a> a <#T> .");
    await host.contributePart(sessionId, modeler, { k: 2, n: 3 }, "<#b> a <#T> .\nBROKEN");
    await host.contributePart(sessionId, modeler, { k: 3, n: 3 }, "<#c> a <#T> .");
    await host.close();
    expect(privately()).toEqual([
      `Part 2/3 of your contribution to ${sessionId} is not valid Turtle at line 2, column 5: Unexpected end of input. None of the 3 parts is used. Nothing from you is in the model yet; send a corrected one, from part 1.`,
    ]);
    expect(host.session(sessionId)?.rejected).toEqual([expect.objectContaining({ agent: "modeler", reason: "part 2/3 line 2:5: Unexpected end of input" })]);
    expect(store.liveEvents().filter((e) => e.input.kind === "contribution")).toHaveLength(1);
    store.close();
  });

  it("a session that completes drops its incomplete contributions and tells their senders once, logging nothing of it", async () => {
    const { store, host, sessionId, privately } = setup();
    await host.contributePart(sessionId, modeler, { k: 1, n: 2 }, "<#a> a <#T> .");
    const loggedBefore = store.liveEvents().length;
    host.cancel(sessionId, { nick: "dana", jid: "dana@localhost" });
    await host.contributePart(sessionId, modeler, { k: 2, n: 2 }, "<#b> a <#T> .");
    await host.close();
    expect(privately()).toEqual([`Your contribution to ${sessionId} in 2 parts was not used: the session completed when only 1 of its 2 parts had arrived.`]);
    // The cancel is logged (and the session archived); no part ever is.
    expect(store.archivedSession(sessionId)?.contributions).toEqual({});
    expect(loggedBefore).toBe(1);
    store.close();
  });
});
