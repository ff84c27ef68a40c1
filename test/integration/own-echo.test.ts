/**
 * The room sends back every message the coordinator says in it. Those echoes are dropped from
 * the stream's text before the XML parser sees them (Rooms registers the rule with its
 * connection; src/xmpp/stanza-splitter.ts), and nothing else is, but the subject it gave the
 * room it created (it ends each join's history): against a real Prosody, with the coordinator
 * in this process so that the stanzas its connection parses can be watched.
 */
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { Element } from "../../src/xmpp/stanza.js";
import { inProcessCoordinator } from "../support/in-process-coordinator.js";
import { TestPeer } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { COORDINATOR_NICK } from "../support/room-kit.js";
import { until } from "../support/until.js";
import { commandWording } from "../../src/commands/wording.js";

const { server, afterThis } = useTestProsody();

describe("the coordinator's own room echoes", () => {
  it("are never parsed, while every other occupant's message is, even one whose text looks like an echo", async () => {
    const room = uniqueRoom(server());
    const { coordinator, store } = await inProcessCoordinator(server(), room, { log: pino({ level: "silent" }) });
    afterThis(async () => {
      await coordinator.stop().catch(() => undefined);
      await store.close();
    });
    const parsed: Element[] = [];
    coordinator.connection.on("stanza", (stanza) => parsed.push(stanza));
    await coordinator.start();
    await until(() => coordinator.rooms.isJoined(room), "room join");

    const account = await registerUser(server(), "alice");
    const alice = await TestPeer.connect(peerOptions(server(), account));
    afterThis(() => alice.stop());
    await alice.joinRoom(room, "alice");

    const ownEcho = `<message from='${room}/${COORDINATOR_NICK}' type='groupchat'><body>mfr-start</body></message>`;
    const asked = [`${COORDINATOR_NICK}: help`, `${COORDINATOR_NICK}: help ${ownEcho}`];
    for (const body of asked) {
      const answers = parsed.length;
      await alice.sendGroupchat(room, { body });
      // The answer is said in the room: alice sees it, and the coordinator's connection gets it back.
      await alice.waitForMessage((m) => m.from === `${room}/${COORDINATOR_NICK}` && (m.body ?? "").includes("mfr-start") && parsed.length > answers, 10_000);
    }
    // Long enough for the echoes of both answers to have come back (alice, a later recipient, has both).
    await new Promise((r) => setTimeout(r, 500));

    const groupchat = parsed.filter((s) => s.is("message") && s.attrs.type === "groupchat");
    // Of its own, only the subject of the room it created is parsed: it ends each join's history.
    const own = groupchat.filter((s) => s.attrs.from === `${room}/${COORDINATOR_NICK}`);
    expect(own.map((s) => [s.getChildText("subject"), s.getChild("body")])).toEqual([[commandWording.roomSubject(COORDINATOR_NICK), undefined]]);
    expect(groupchat.filter((s) => s.attrs.from === `${room}/alice`).map((s) => s.getChildText("body"))).toEqual(asked);
  }, 30_000);
});
