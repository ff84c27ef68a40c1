/**
 * What a command handler is, and what it may reach: the sessions, the chooser and the room
 * as data, and the context it answers through. Handlers never hold a connection.
 */
import type { Command, CommandName } from "./parse.js";
import type { IdentifiedContext } from "../inbound/context.js";
import type { RefusalReason } from "../ops/refusals.js";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import type { SessionHost } from "../host/session-host.js";
import type { RoomIdentities } from "../xmpp/rooms.js";

/** What every handler may use. */
export interface CommandScope {
  /** Our nick, and the primary room as configured (named in answers). */
  nick: string;
  room: string;
  maxStanzaBytes: number;
  sessions: Pick<SessionHost, "listText" | "statusText" | "start" | "cancel" | "session" | "apply" | "clarificationFor" | "debatingSessions">;
  chooser: Pick<AgentChooser, "planStart" | "planDebate" | "listing">;
  /** How the primary room tells people apart, once known. */
  identities: () => RoomIdentities | undefined;
  /** Commands that have a handler, for `help` (registry.ts). */
  available: ReadonlySet<CommandName>;
  refused: (reason: RefusalReason) => void;
}

/** Carries out one command, taken from someone whose standing allows it (inbound/identify.ts). */
export type CommandHandler<N extends CommandName = CommandName> = (command: Extract<Command, { name: N }>, ctx: IdentifiedContext, scope: CommandScope) => Promise<void>;

