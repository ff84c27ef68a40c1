/**
 * A server that offers XEP-0198 stream management with resumption (Prosody's mod_smacks
 * here; ejabberd offers it by default): a coordinator killed with SIGKILL and started again
 * must come back into its room and stay there. The room must not kick it ("has sent an
 * error message … and got kicked", status 307) when the server ends the old, hibernated
 * session and bounces what was queued for it.
 */
import { describe, expect, it } from "vitest";
import { CoordinatorProcess } from "../support/coordinator-process.js";
import { COORDINATOR_NICK, helpAnswer, mucOf } from "../support/room-kit.js";
import { TestPeer, type Element } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";

const HIBERNATION_S = 3;
const { server, afterThis } = useTestProsody({ streamManagement: true, smacksHibernationSeconds: HIBERNATION_S });

const kickedOrErrored = (room: string) => (p: Element): boolean =>
  p.attrs.from === `${room}/${COORDINATOR_NICK}` &&
  p.attrs.type === "unavailable" &&
  (mucOf(p).statuses.some((code) => code === "307" || code === "333") || /error/i.test(p.getChildText("status") ?? ""));

async function answersHelp(peer: TestPeer, room: string): Promise<string | undefined> {
  const from = peer.messages.length;
  await peer.sendGroupchat(room, { body: "help" });
  await peer.waitForMessage((m) => peer.messages.indexOf(m) >= from && helpAnswer(room)(m), 5000);
  return "answered";
}

describe("a server offering stream management (XEP-0198)", () => {
  it("a coordinator killed with SIGKILL and started again is not kicked from its room", async () => {
    const room = uniqueRoom(server());
    const first = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => first.kill());
    await first.joined(room);
    const account = await registerUser(server(), "alice");
    const alice = await TestPeer.connect(peerOptions(server(), account));
    afterThis(() => alice.stop());
    await alice.joinRoom(room, "alice");
    expect(await answersHelp(alice, room)).toBe("answered");

    await first.kill();
    // What the room sends while the coordinator is gone is what a hibernated session queues.
    for (let i = 0; i < 3; i++) await alice.sendGroupchat(room, { body: `chatter while it is down ${i}` });
    const second = await first.restart({ server: server(), room });
    afterThis(() => second.kill());
    await second.joined(room);
    expect(await answersHelp(alice, room)).toBe("answered");

    // Past the server's hibernation time, whatever it does with the old session has happened.
    await new Promise((r) => setTimeout(r, (HIBERNATION_S + 2) * 1000));
    expect(alice.presences.filter(kickedOrErrored(room)).map((p) => p.toString())).toEqual([]);
    expect(second.logs.filter((l) => l.msg === "left the room involuntarily")).toEqual([]);
    expect(await answersHelp(alice, room)).toBe("answered");
    expect(second.child.exitCode).toBeNull();
  }, 60_000);

  it("runs a session's worth of traffic with stream management offered, without the server closing the stream", async () => {
    const room = uniqueRoom(server());
    const coordinator = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    const account = await registerUser(server(), "bob");
    const bob = await TestPeer.connect(peerOptions(server(), account));
    afterThis(() => bob.stop());
    await bob.joinRoom(room, "bob");
    for (let i = 0; i < 20; i++) expect(await answersHelp(bob, room)).toBe("answered");
    expect(coordinator.logs.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
  }, 30_000);
});
