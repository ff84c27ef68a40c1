/**
 * What a command handler is, and what it may reach: the sessions, the chooser and the room
 * as data, and the context it answers through. Handlers never hold a connection.
 */
import type { Command, CommandName } from "./parse.js";
import type { Heard } from "../host/heard.js";
import type { Participant, Requester } from "../session/types.js";
import type { RefusalReason } from "../ops/refusals.js";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import type { SessionHost } from "../host/session-host.js";
import type { RoomIdentities } from "../xmpp/rooms.js";

/**
 * What a handler knows of the message it carries out and how it answers; the inbound
 * pipeline's context (inbound/context.ts) is one, once the sender is identified.
 */
export interface CommandContext {
  /** The message's keys and when it counts (host/heard.ts), for the input a command becomes. */
  readonly heard: Heard | undefined;
  /** Who asks: as the session core knows participants, and with the standing to steer others' sessions. */
  readonly standing: { readonly participant: Participant; readonly requester: Requester };
  /** The sender's name, to address them in a room answer. */
  readonly sender: { readonly name: string };
  /** Whether the command was said in a room or in 1:1 chat. */
  readonly replyTo: { readonly kind: "room" | "direct" };
  /** Answers where the command came from. */
  reply(text: string): Promise<void>;
  /** Says something in the primary room or the log room, whoever asked. */
  sayIn(room: "primary" | "log", text: string): Promise<void>;
}

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
export type CommandHandler<N extends CommandName = CommandName> = (command: Extract<Command, { name: N }>, ctx: CommandContext, scope: CommandScope) => Promise<void>;

