/** Who sent something: a room nick, and the real JID when known. */
export interface SenderIdentity {
  nick: string | undefined;
  realJid: string | undefined;
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

  markAgent(sender: SenderIdentity): void {
    for (const key of keysOf(sender)) this.agents.add(key);
  }

  isAgent(sender: SenderIdentity): boolean {
    return keysOf(sender).some((key) => this.agents.has(key));
  }
}

/** True when the sender's nick or real JID is on the list (case-insensitive). */
export function isListed(sender: SenderIdentity, list: readonly string[]): boolean {
  if (list.length === 0) return false;
  const keys = keysOf(sender);
  return list.some((entry) => keys.includes(entry.toLowerCase()));
}

function keysOf(sender: SenderIdentity): string[] {
  const keys: string[] = [];
  if (sender.nick) keys.push(sender.nick.toLowerCase());
  if (sender.realJid) keys.push(sender.realJid.toLowerCase());
  return keys;
}
