/** Who sent something: a room nick, the real JID when known, and the identity key (see xmpp/occupant-identity.ts). */
export interface SenderIdentity {
  nick: string | undefined;
  realJid: string | undefined;
  identity?: string | undefined;
}

/**
 * Tells peer agents from humans. A sender is an agent when a profile names it, when it
 * has sent protocol payloads, or when it advertises Lingue features. Used to refuse
 * commands from agents that are not allow-listed, so that bots cannot drive each other in loops.
 */
export class AgentRecognition {
  private readonly agents = new Set<string>();

  constructor(knownAgentNicks: Iterable<string> = []) {
    for (const nick of knownAgentNicks) this.agents.add(nick.toLowerCase());
  }

  /** Remembers the sender as an agent by nick, real JID and identity, so a rename does not shed it. */
  markAgent(sender: SenderIdentity): void {
    for (const key of keysOf(sender)) this.agents.add(key);
    if (sender.identity) this.agents.add(sender.identity);
  }

  isAgent(sender: SenderIdentity): boolean {
    return keysOf(sender).some((key) => this.agents.has(key)) || (sender.identity !== undefined && this.agents.has(sender.identity));
  }
}

/**
 * True when the sender's real JID is on the list; also when its nick is, which is only as
 * strong as the room's hold on nicks (case-insensitive).
 */
export function isListed(sender: SenderIdentity, list: readonly string[]): boolean {
  if (list.length === 0) return false;
  const keys = keysOf(sender);
  return list.some((entry) => keys.includes(entry.toLowerCase()));
}

/** True only when the sender's real JID is on the list: what authority over sessions rests on. */
export function isListedByJid(sender: SenderIdentity, list: readonly string[]): boolean {
  const jid = sender.realJid?.toLowerCase();
  return jid !== undefined && list.some((entry) => entry.toLowerCase() === jid);
}

function keysOf(sender: SenderIdentity): string[] {
  const keys: string[] = [];
  if (sender.nick) keys.push(sender.nick.toLowerCase());
  if (sender.realJid) keys.push(sender.realJid.toLowerCase());
  return keys;
}
