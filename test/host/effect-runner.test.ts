/**
 * The effect runner's rules: a step's messages are queued in the order the core produced
 * them, each at its place among the step's stanzas when the step was logged, and before
 * anything else the step asks for; deadlines, analyses and completion go where they belong.
 */
import { describe, expect, it, vi } from "vitest";
import { EffectRunner } from "../../src/host/effect-runner.js";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import { Outbox } from "../../src/host/outbox.js";
import { SessionTable } from "../../src/host/session-table.js";
import type { Effect } from "../../src/session/step-io.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { ArrayJournal, NOW, RENDER, silent } from "./fakes.js";

const STEP: Effect[] = [
  { kind: "say", room: "primary", text: "one" },
  { kind: "schedule", sessionId: "s1", at: NOW + 60_000 },
  { kind: "tell", nick: "ada", text: "two", privately: true },
  { kind: "analyse", sessionId: "s1", version: 1, problem: "p", contributions: [] },
  { kind: "say", room: "primary", text: "three" },
  { kind: "unschedule", sessionId: "s1" },
  { kind: "finished", sessionId: "s1" },
];

function runnerWith(journal: ArrayJournal) {
  const sent: Element[] = [];
  const order: string[] = [];
  const outbox = new Outbox({ send: async (stanza) => void sent.push(stanza) }, new JournalKeeper(journal, new SessionTable(), silent), silent, RENDER.room);
  const queue = outbox.queue.bind(outbox);
  vi.spyOn(outbox, "queue").mockImplementation((outgoing, place) => {
    order.push(`send ${outgoing.stanza.getChildText("body")}`);
    queue(outgoing, place);
  });
  const runner = new EffectRunner({
    render: RENDER,
    log: silent,
    outbox,
    deadlines: { schedule: (id, at) => order.push(`schedule ${id} ${at - NOW}`), cancel: (id) => order.push(`cancel ${id}`) },
    analyses: { run: (effect) => order.push(`analyse ${effect.sessionId} v${effect.version}`) },
    keeper: { finished: (id) => order.push(`finished ${id}`) },
  });
  return { runner, outbox, sent, order };
}

describe("EffectRunner", () => {
  it("queues the step's messages first, in the core's order, then carries out the rest in order", () => {
    const { runner, order } = runnerWith(new ArrayJournal());
    runner.carryOut("s1", STEP, NOW, 3);
    // A line said in the room carries the status mark (session/room-lines.ts).
    expect(order).toEqual(["send [MFR] one", "send two", "send [MFR] three", "schedule s1 60000", "analyse s1 v1", "cancel s1", "finished s1"]);
  });

  it("gives each message of a logged step its place, and records each once when sent", async () => {
    const journal = new ArrayJournal();
    const { runner, outbox, sent } = runnerWith(journal);
    runner.carryOut("s1", STEP, NOW, 3);
    await outbox.drained();
    expect(sent.map((s) => s.attrs.id)).toEqual(["mfr:s1:3:0", "mfr:s1:3:1", "mfr:s1:3:2"]);
    expect(journal.sent.map((r) => [r.eventSeq, r.position, r.at, r.what])).toEqual([
      [3, 0, NOW, "say primary"],
      [3, 1, NOW, "tell privately"],
      [3, 2, NOW, "say primary"],
    ]);
  });

  it("sends the messages of a step that was not logged without places, and records none", async () => {
    const journal = new ArrayJournal();
    const { runner, outbox, sent } = runnerWith(journal);
    runner.carryOut("s1", [{ kind: "tell", nick: "ada", text: "no such session" }], NOW, undefined);
    await outbox.drained();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.attrs.id).toBeUndefined();
    expect(journal.sent).toEqual([]);
  });
});
