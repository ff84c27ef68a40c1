/**
 * A coordinator profile for configuration tests: a complete agent node on a local account;
 * `agentLines` go on the agent node (each ending in ` ;`), `mfrLines` inside agent:mfrConfig.
 * And the one-line message a configuration is refused with.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { ConfigError } from "../../src/config/errors.js";

let written = 0;

/** Writes a fresh `profile-N.ttl` into `dir` (its data directory `dir/data`); returns its path. */
export function writeConfigProfile(dir: string, agentLines: string, mfrLines = ""): string {
  const path = join(dir, `profile-${++written}.ttl`);
  writeFileSync(
    path,
    `@prefix agent: <https://tensegrity.it/vocab/agent#> .
@prefix xmpp: <https://tensegrity.it/vocab/xmpp#> .
@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<#coordinator> foaf:nick "Coordinator" ;
  agent:xmppAccount [ xmpp:service "xmpp://localhost:5222" ; xmpp:domain "localhost" ; xmpp:username "coordinator" ] ;
  ${agentLines}
  agent:mfrConfig [ mfr:dataDir "${join(dir, "data")}" ; ${mfrLines} ] .
`,
  );
  return path;
}

/** The message `load` fails with: a ConfigError in one line (the test fails if it is accepted). */
export function configErrorOf(load: () => unknown): string {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    return message;
  }
  throw new Error("the configuration was accepted");
}
