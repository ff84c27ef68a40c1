/**
 * A profile and secrets file for an agent of ours (the coordinator, the solver) on a local
 * server, as the tests and the benchmarks start them: one writer, so every such profile has
 * the same account block and the password is never in the profile itself.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LocalAgentProfile {
  /** The profile's agent node (`<#coordinator>`) and file name (`coordinator.ttl`). */
  node: string;
  nick: string;
  server: { service: string; domain: string };
  account: { username: string; password: string };
  /** The key of the password in the secrets file. */
  passwordKey: string;
  resource: string;
  room: string;
  /** Further statements about the agent node, each ending in ` ;` (log room, phase rooms). */
  statements?: string[];
  /** The contents of `agent:mfrConfig [ … ]`. */
  mfrConfig?: string;
  /** Further statements inside `agent:xmppAccount [ … ]`, each starting with ` ;` (e.g. `; xmpp:directLine false`). */
  xmppAccount?: string;
}

/** Writes `<node>.ttl` and `secrets.json` into `dir`; returns their paths. */
export function writeLocalAgentProfile(dir: string, p: LocalAgentProfile): { profile: string; secrets: string } {
  const profile = join(dir, `${p.node}.ttl`);
  writeFileSync(
    profile,
    `@prefix agent: <https://tensegrity.it/vocab/agent#> .
@prefix xmpp: <https://tensegrity.it/vocab/xmpp#> .
@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<#${p.node}> foaf:nick "${p.nick}" ;
  agent:xmppAccount [ xmpp:service "${p.server.service}" ; xmpp:domain "${p.server.domain}" ;
    xmpp:username "${p.account.username}" ; xmpp:passwordKey "${p.passwordKey}" ; xmpp:resource "${p.resource}" ${p.xmppAccount ?? ""}] ;
  agent:roomJid "${p.room}" ;
  ${(p.statements ?? []).join("\n  ")}
  agent:mfrConfig [ ${p.mfrConfig ?? ""} ] .
`,
  );
  const secrets = join(dir, "secrets.json");
  writeFileSync(secrets, JSON.stringify({ xmpp: { [p.passwordKey]: p.account.password } }));
  return { profile, secrets };
}
