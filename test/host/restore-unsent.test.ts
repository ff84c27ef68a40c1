/**
 * A kill -9 between logging an input and handing its stanzas to the connection: the next
 * start sends exactly those stanzas — and nothing that had already gone out.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { SessionHost, originIdOf, type ModelService } from "../../src/host/session-host.js";
import { NS_SID } from "../../src/xmpp/room-history.js";
import { verifyStore } from "../../src/host/sent-check.js";
import type { RenderContext } from "../../src/host/outgoing.js";
import { SessionStore } from "../../src/store/session-store.js";
import type { Element } from "../../src/xmpp/stanza.js";

const RENDER: RenderContext = { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 };
const NO_MODELS: ModelService = {
  check: () => Promise.reject(new Error("not used")),
  analyse: () => Promise.reject(new Error("not used")),
  verify: () => Promise.reject(new Error("not used")),
};
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function host(store: SessionStore, sent: Element[], now: () => number): SessionHost {
  return new SessionHost({
    render: RENDER,
    settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 },
    maxLiveSessions: 5,
    models: NO_MODELS,
    outlet: { send: async (stanza) => void sent.push(stanza) },
    log: pino({ level: "silent" }),
    now,
    journal: store,
  });
}

describe("restore after a crash between logging and sending", () => {
  it("sends the swallowed tail once, and nothing that was already sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-unsent-"));
    dirs.push(dir);
    let store = SessionStore.open(dir);
    const before: Element[] = [];
    const first = host(store, before, () => 1_000);
    const started = first.start("Move the crates", { nick: "dana", jid: "dana@localhost" }, { expectedAgents: [] });
    if (!started.ok) throw new Error(started.reason);
    await first.close();
    expect(before.length).toBeGreaterThan(0);
    // The crash: the cancel reached the log, its stanzas never reached the connection.
    store.append(started.sessionId, { kind: "cancel", sessionId: started.sessionId, by: { nick: "dana", jid: "dana@localhost" } }, 2_000);
    store.close();

    store = SessionStore.open(dir);
    const after: Element[] = [];
    const second = host(store, after, () => 3_000);
    const restored = second.restore(store.liveEvents());
    // Nothing goes out until the rooms are caught up on (the coordinator calls this then).
    await new Promise((r) => setTimeout(r, 10));
    expect(after).toEqual([]);
    const tail = second.sendRestoredTail(new Set());
    await second.close();
    expect(restored.unsent).toBe(after.length);
    expect(tail).toEqual({ sent: after.length, skipped: 0 });
    const bodies = after.map((s) => String(s.getChildText("body")));
    expect(bodies.some((b) => b.includes("cancelled"))).toBe(true);
    // Nothing of the start step again: its request went out before the crash.
    expect(after.map(String)).not.toContain(before.map(String)[0]);
    const checks = verifyStore(store, RENDER);
    expect(checks.flatMap((c) => c.mismatches)).toEqual([]);
    expect(checks.reduce((n, c) => n + c.pending, 0)).toBe(0);

    // A second restart sends nothing at all.
    const again: Element[] = [];
    const third = host(store, again, () => 4_000);
    third.restore(store.liveEvents());
    third.sendRestoredTail(new Set());
    await third.close();
    expect(again).toEqual([]);
    store.close();
  });

  it("every stanza of a logged step carries an origin-id made of what it answers, the same when sent again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-unsent-"));
    dirs.push(dir);
    let store = SessionStore.open(dir);
    const before: Element[] = [];
    const first = host(store, before, () => 1_000);
    const started = first.start("Move the crates", { nick: "dana", jid: "dana@localhost" }, { expectedAgents: [] });
    if (!started.ok) throw new Error(started.reason);
    await first.close();
    const ids = before.map((s) => s.getChild("origin-id", NS_SID)?.attrs.id as string | undefined);
    expect(ids.every((id) => id !== undefined && id.startsWith(`mfr:${started.sessionId}:`))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(before.map((s) => s.attrs.id)).toEqual(ids);
    // The crash: the cancel logged, its stanzas written to the socket but not recorded.
    const seq = store.append(started.sessionId, { kind: "cancel", sessionId: started.sessionId, by: { nick: "dana", jid: "dana@localhost" } }, 2_000);
    store.close();

    store = SessionStore.open(dir);
    const resent: Element[] = [];
    const second = host(store, resent, () => 3_000);
    second.restore(store.liveEvents());
    second.sendRestoredTail(new Set());
    await second.close();
    expect(resent.length).toBeGreaterThan(0);
    // The same stanza sent again after a crash has the same id.
    expect(resent.map((s) => s.getChild("origin-id", NS_SID)?.attrs.id)).toEqual(resent.map((_, i) => originIdOf(started.sessionId, { eventSeq: seq, position: i })));
    store.close();
  });

  it("does not send again what the room's history shows it carried, and records it as sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-unsent-"));
    dirs.push(dir);
    let store = SessionStore.open(dir);
    const first = host(store, [], () => 1_000);
    const started = first.start("Move the crates", { nick: "dana", jid: "dana@localhost" }, { expectedAgents: [] });
    if (!started.ok) throw new Error(started.reason);
    await first.close();
    const seq = store.append(started.sessionId, { kind: "cancel", sessionId: started.sessionId, by: { nick: "dana", jid: "dana@localhost" } }, 2_000);
    store.close();

    store = SessionStore.open(dir);
    const probe: Element[] = [];
    const counting = host(store, probe, () => 3_000);
    const { unsent } = counting.restore(store.liveEvents());
    expect(unsent).toBeGreaterThan(0);
    // The kill came after the first stanza of the cancel reached the room: its history shows it.
    const carried = new Set([originIdOf(started.sessionId, { eventSeq: seq, position: 0 })]);
    const tail = counting.sendRestoredTail(carried);
    await counting.close();
    expect(tail).toEqual({ sent: unsent - 1, skipped: 1 });
    expect(probe.map((s) => s.getChild("origin-id", NS_SID)?.attrs.id)).not.toContain([...carried][0]);
    const checks = verifyStore(store, RENDER);
    expect(checks.flatMap((c) => c.mismatches)).toEqual([]);
    expect(checks.reduce((n, c) => n + c.pending, 0)).toBe(0);
    store.close();
  });
});
