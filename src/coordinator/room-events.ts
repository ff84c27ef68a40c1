/**
 * What the room connection and the rooms tell, to whom it concerns: the connection's comings
 * and goings to the rooms, the catch-up and the metrics (its stanzas go to the pipeline,
 * which listens itself); how a room tells people apart to the identity
 * notes, joins and histories to the catch-up, what a room says of keeping agents' protocol
 * messages to the absences, and who comes and goes in the primary room to
 * the chooser. A chosen agent that leaves before it is asked is dropped or replaced, never
 * waited for.
 */
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import type { RoomCatchUp } from "../catch-up/catch-up.js";
import type { SessionHost } from "../host/session-host.js";
import type { Logger } from "pino";
import type { Rooms } from "../xmpp/rooms.js";
import type { XmppConnection } from "../xmpp/connection.js";
import type { OperationsMetrics } from "../ops/metrics.js";
import type { Absences } from "../catch-up/absences.js";
import { IdentityNotes } from "../catch-up/identity-notes.js";
import type { OurRooms } from "../config/our-rooms.js";

/** The rooms and those their events concern. */
export interface RoomListeners {
  rooms: Rooms;
  ourRooms: OurRooms;
  log: Logger;
  catchUp: Pick<RoomCatchUp, "joining" | "took">;
  absences: Pick<Absences, "noteFacts">;
  chooser: Pick<AgentChooser, "occupantJoined" | "occupantLeft" | "departures">;
  sessions: Pick<SessionHost, "choosingSessions" | "liveSessions" | "apply">;
}

/** Listens to the rooms for the whole life of the coordinator. */
export function followTheRooms({ rooms, ourRooms, log, catchUp, absences, chooser, sessions }: RoomListeners): void {
  const primary = ourRooms.primary;
  const identityNotes = new IdentityNotes({ rooms: ourRooms, log, liveSessions: () => sessions.liveSessions(), apply: (input) => sessions.apply(input) });
  rooms.on("identities", (room, identities) => identityNotes.note(room, identities));
  rooms.on("joining", (room) => catchUp.joining(room));
  rooms.on("facts", (room, facts) => absences.noteFacts(room, facts));
  rooms.on("history", (room, history) => void catchUp.took(room, history));
  rooms.on("occupantJoined", (room, occupant) => {
    if (room === primary) chooser.occupantJoined(occupant);
  });
  rooms.on("occupantLeft", (room, nick) => {
    if (room !== primary) return;
    const gone = chooser.occupantLeft(nick);
    if (gone) for (const departure of chooser.departures(gone, sessions.choosingSessions())) sessions.apply(departure);
  });
}

/** The room connection and those its events concern. */
export interface ConnectionListeners {
  connection: XmppConnection;
  rooms: Pick<Rooms, "rejoinAll" | "markDisconnected">;
  catchUp: Pick<RoomCatchUp, "disconnected">;
  metrics: Pick<OperationsMetrics, "connectionOnline">;
}

/** Online: every room is joined again; offline: the rooms and the catch-up know. */
export function followTheConnection({ connection, rooms, catchUp, metrics }: ConnectionListeners): void {
  connection.on("online", () => void rooms.rejoinAll());
  connection.on("online", () => metrics.connectionOnline());
  connection.on("offline", () => rooms.markDisconnected());
  connection.on("offline", () => catchUp.disconnected());
}
