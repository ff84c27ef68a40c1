/**
 * What a room and its MUC service say of themselves at a join (disco#info, XEP-0030), read
 * once per join: whether the room keeps an archive (XEP-0313), and every feature the room or
 * its service advertises, with the FORM_TYPE of the service's extended information
 * (XEP-0128), where a server module that cannot add a feature says what it does. What the
 * features mean is the caller's (the coordinator looks for its own server module's); this
 * module knows nothing of MFR.
 */
import type { XmppConnection } from "./connection.js";
import { NS_MAM } from "./room-archive.js";
import { splitJid } from "./stanza.js";

/** A room's own features and its service's, as read at one join. */
export interface RoomFacts {
  /** The room advertises an archive (urn:xmpp:mam:2): its history is read from there. */
  readonly archived: boolean;
  /** Every feature of the room and of its service, and the service's XEP-0128 form types. */
  readonly features: ReadonlySet<string>;
  /** Neither the room nor its service answered disco#info: nothing is known. */
  readonly unanswered: boolean;
}

/** Reads RoomFacts; a service's answer is kept until `forget` (each reconnect), since rooms of one service share it. */
export class RoomFactsReader {
  private readonly services = new Map<string, Promise<{ features: string[]; formTypes: string[] } | null>>();

  constructor(private readonly connection: XmppConnection) {}

  /** The room's facts now (never throws; what did not answer counts as not said). */
  async read(roomJid: string): Promise<RoomFacts> {
    const bare = splitJid(roomJid).bare;
    const domain = bare.slice(bare.indexOf("@") + 1);
    let service = this.services.get(domain);
    if (!service) {
      service = this.connection.discoInfo(domain);
      this.services.set(domain, service);
    }
    const [room, ofService] = await Promise.all([this.connection.discoInfo(roomJid), service]);
    // A service that did not answer is asked again at the next join.
    if (ofService === null) this.services.delete(domain);
    const features = new Set([...(room?.features ?? []), ...(ofService?.features ?? []), ...(ofService?.formTypes ?? [])]);
    return { archived: room?.features.includes(NS_MAM) ?? false, features, unanswered: room === null && ofService === null };
  }

  /** Forgets what services said (a reconnect: the server may have been reconfigured). */
  forget(): void {
    this.services.clear();
  }
}
