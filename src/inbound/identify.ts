/**
 * The third stage: who asks, and whether their standing lets them. A protocol message from
 * a sender off mfr:allowProtocolFrom (when it is set) is refused; any other makes its
 * sender an agent in the catalog. A command from an agent is refused (unless allow-listed),
 * answered privately once in a while; a command that changes something needs us in the
 * primary room and the sender in one of our rooms. Whoever types a command that is taken is
 * a person. Nobody answers an agent's misspelt command: agents answer us, and it would loop.
 */
import type { Logger } from "pino";
import type { CommandName } from "../commands/parse.js";
import { wording } from "./wording.js";
import type { RefusalReason } from "../ops/refusals.js";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import { isListed, participantOf, requesterOf, type Sender } from "./sender.js";
import type { Rooms } from "../xmpp/rooms.js";
import { withStanding, type IdentifiedContext, type ReadContext, type Standing } from "./context.js";
import type { Stage } from "./chain.js";

/** Commands that change nothing; anyone who can reach us may use them. */
const READ_ONLY: ReadonlySet<CommandName> = new Set(["help", "list", "status", "agents"]);
/** An agent told that its commands are not taken is not told again for this long. */
const AGENT_REFUSAL_QUIET_MS = 10 * 60_000;

/** What identifying needs: the allow-lists, the rooms as they are now, and the chooser that keeps the evidence. */
export interface IdentifyOptions {
  primaryRoom: string;
  /** mfr:allowProtocolFrom and mfr:allowCommandsFrom. */
  protocolAllowList: readonly string[];
  commandAllowList: readonly string[];
  rooms: Pick<Rooms, "isJoined" | "roomJids" | "occupants">;
  chooser: Pick<AgentChooser, "isAgent" | "protocolFrom" | "commandFrom">;
  refused: (reason: RefusalReason) => void;
  log: Logger;
  now: () => number;
}

/** The identifying stage (see the top of this file); remembers when each agent was last told its commands are not taken. */
export class Identification {
  private readonly agentRefusedAt = new Map<string, number>();

  constructor(private readonly options: IdentifyOptions) {}

  /** The context with the sender's standing, or undefined when the message goes no further. */
  async run(ctx: ReadContext): Promise<IdentifiedContext | undefined> {
    const { reading } = ctx;
    const standing = this.standingOf(ctx.sender);
    if (reading.kind === "protocol") {
      const { protocolAllowList, refused, log, chooser } = this.options;
      if (protocolAllowList.length > 0 && !isListed(ctx.sender.identity, protocolAllowList)) {
        refused("not-allowed");
        log.warn({ sender: ctx.sender.label, mode: reading.payloadMode }, "protocol message from a sender not on mfr:allowProtocolFrom ignored");
        return undefined;
      }
      // Whatever it says, a sender of protocol messages is an agent; what it sent is counted.
      chooser.protocolFrom(standing.facts, reading.evidence);
    } else if (reading.kind === "command") {
      if (!(await this.mayCommand(ctx, standing, reading.command.name))) return undefined;
    } else if (reading.kind === "unknown" && standing.agent) {
      return undefined;
    }
    return withStanding(ctx, standing);
  }

  private standingOf(sender: Sender): Standing {
    const { primaryRoom, commandAllowList, chooser } = this.options;
    const o = sender.occupant;
    const facts = { nick: sender.name, identity: sender.identity.identity ?? `nick:${sender.name.toLowerCase()}`, realJid: o?.realJid, formerNicks: o?.formerNicks ?? [] };
    // An agent stays one under a new nick: its identity, and every nick it had, are checked.
    const agent = chooser.isAgent({ ...sender.identity, formerNicks: o?.formerNicks ?? [] });
    return { participant: participantOf(sender, primaryRoom), requester: requesterOf(sender, primaryRoom, commandAllowList), facts, agent };
  }

  private async mayCommand(ctx: ReadContext, standing: Standing, command: CommandName): Promise<boolean> {
    const { refused, log, now, rooms, primaryRoom, commandAllowList } = this.options;
    if (standing.agent && !isListed(ctx.sender.identity, commandAllowList)) {
      const key = ctx.sender.rateKey;
      const last = this.agentRefusedAt.get(key);
      refused("agent-command");
      log.info({ sender: key, command }, "command from an agent refused");
      if (last === undefined || now() - last > AGENT_REFUSAL_QUIET_MS) {
        this.agentRefusedAt.set(key, now());
        await ctx.replyPrivately(wording.agentCommandRefused());
      }
      return false;
    }
    if (!READ_ONLY.has(command)) {
      // Without the room (the room connection down while the direct line is up) nobody can be
      // told to be an occupant, and what a command would say there would wait in the outbox.
      if (!rooms.isJoined(primaryRoom)) {
        refused("not-in-room");
        await ctx.reply(wording.notInRoom());
        return false;
      }
      if (!this.isOccupantOrListed(ctx)) {
        refused("not-occupant");
        await ctx.reply(wording.occupantsOnly());
        return false;
      }
    }
    // Whoever types commands is a person: never invited to work.
    if (ctx.sender.room === primaryRoom) this.options.chooser.commandFrom(standing.facts);
    return true;
  }

  /** Said in a room, or through one, or by an allow-listed JID, or by a JID seen in one of our rooms. */
  private isOccupantOrListed(ctx: ReadContext): boolean {
    const { message, sender } = ctx;
    if (message.kind === "room") return true;
    if (message.viaRoom) return true;
    if (isListed(sender.identity, this.options.commandAllowList)) return true;
    const jid = sender.identity.realJid;
    const { rooms } = this.options;
    return jid !== undefined && rooms.roomJids().some((room) => rooms.occupants(room).some((o) => o.realJid === jid));
  }
}

/** The identifying stage: the context goes on with the sender's standing, unless it may not ask what it asks. */
export function identified(identification: Identification): Stage<ReadContext, IdentifiedContext> {
  return async (ctx, next) => {
    const standing = await identification.run(ctx);
    if (standing) await next(standing);
  };
}
