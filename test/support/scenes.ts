/**
 * Set-ups several integration tests share: a coordinator in a fresh room (and a log room),
 * with a person present in both.
 */
import { CoordinatorProcess } from "./coordinator-process.js";
import { TestPeer } from "./peer.js";
import { peerOptions, registerUser, uniqueRoom, type LocalProsody } from "./prosody.js";

export interface RoomWithLog {
  room: string;
  logRoom: string;
  coordinator: CoordinatorProcess;
  /** A person, in both rooms. */
  human: TestPeer;
}

/** A coordinator with a primary and a log room, and a person ("alice") who joined both. */
export async function coordinatorWithLogRoom(server: LocalProsody, afterThis: (step: () => Promise<unknown>) => void, mfrConfig: string): Promise<RoomWithLog> {
  const room = uniqueRoom(server);
  const logRoom = uniqueRoom(server, "log");
  const coordinator = await CoordinatorProcess.start({ server, room, logRoom, mfrConfig });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  await coordinator.joined(logRoom);
  const human = await TestPeer.connect(peerOptions(server, await registerUser(server, "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  await human.joinRoom(logRoom, "alice");
  return { room, logRoom, coordinator, human };
}
