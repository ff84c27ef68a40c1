import type { XmppConnection } from "./connection.js";
import { NS_DISCO_INFO, NS_MUC, NS_PING, xml } from "./stanza.js";

export interface Identity {
  category: string;
  type: string;
  name: string;
}

/**
 * Answers XEP-0030 disco#info (our identity and features) and XEP-0199 ping, both on our
 * own JID and, through the room, on our occupant JID.
 */
export function answerDiscoveryAndPing(connection: XmppConnection, identity: Identity, features: readonly string[]): void {
  const all = [...new Set([NS_DISCO_INFO, NS_PING, NS_MUC, ...features])];
  connection.onIqGet(NS_DISCO_INFO, "query", (request) => {
    const node = request.getChild("query", NS_DISCO_INFO)?.attrs.node;
    return xml(
      "query",
      { xmlns: NS_DISCO_INFO, ...(node ? { node } : {}) },
      xml("identity", { ...identity }),
      ...all.map((feature) => xml("feature", { var: feature })),
    );
  });
  connection.onIqGet(NS_PING, "ping", () => true);
}
