/**
 * Where Debian's ejabberd keeps what it runs on, and the project's tested configuration
 * (ejabberd/ejabberd.yml) made into one for a throw-away server. The tests start the
 * Erlang VM themselves, as `ejabberdctl foreground` would, rather than through
 * ejabberdctl: as root that script runs everything through `su ejabberd`, which would
 * stand between the tests and the server's process, and for any other user but
 * `ejabberd` it refuses to run at all.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findOnPath } from "../../src/localserver/locate.js";
import { REPO_ROOT } from "./cli.js";

/** The one command a person runs to install ejabberd. */
export const EJABBERD_INSTALL_COMMAND = "sudo apt-get install -y ejabberd";

/** Where Debian puts ejabberdctl; /usr/sbin is often not on a non-root PATH. */
const DEBIAN_EJABBERDCTL = "/usr/sbin/ejabberdctl";

export class EjabberdNotInstalledError extends Error {
  readonly installCommand = EJABBERD_INSTALL_COMMAND;
  constructor(detail: string) {
    super(`ejabberd (the XMPP server) is not installed: ${detail}. Install it with: ${EJABBERD_INSTALL_COMMAND}`);
    this.name = "EjabberdNotInstalledError";
  }
}

/** What starting ejabberd by hand needs: the Erlang runtime and the directory of ejabberd's libraries. */
export interface EjabberdRuntime {
  ejabberdctl: string;
  /** The `erl` launcher ejabberdctl uses. */
  erl: string;
  /** ERL_LIBS as ejabberdctl sets it: where ejabberd and its dependencies are. */
  erlLibs: string;
  /** The Erlang compiler beside `erl` (Debian's erlang-base, which ejabberd depends on). */
  erlc: string;
}

/** Reads `NAME="value"` (or 'value') as ejabberdctl assigns it. */
function assignment(script: string, name: string): string | undefined {
  return new RegExp(`^${name}=(["'])(.*?)\\1\\s*$`, "m").exec(script)?.[2];
}

/**
 * Finds ejabberd as Debian installs it (`debianPath` is where ejabberdctl is looked for when
 * it is not on PATH); throws EjabberdNotInstalledError with the install command.
 */
export function locateEjabberd(env: NodeJS.ProcessEnv = process.env, debianPath = DEBIAN_EJABBERDCTL): EjabberdRuntime {
  const ejabberdctl = findOnPath("ejabberdctl", env) ?? (existsSync(debianPath) ? debianPath : undefined);
  if (!ejabberdctl) throw new EjabberdNotInstalledError(`'ejabberdctl' is neither on PATH nor at ${debianPath}`);
  const script = readFileSync(ejabberdctl, "utf8");
  const erl = assignment(script, "ERL");
  const erlLibs = assignment(script, "ERL_LIBS");
  if (!erl || !erlLibs) throw new EjabberdNotInstalledError(`${ejabberdctl} does not name ERL and ERL_LIBS as Debian's does`);
  if (!existsSync(erl)) throw new EjabberdNotInstalledError(`the Erlang runtime ${erl} that ${ejabberdctl} uses is missing`);
  const erlc = join(dirname(erl), "erlc");
  if (!existsSync(erlc)) throw new EjabberdNotInstalledError(`the Erlang compiler ${erlc} is missing`);
  return { ejabberdctl, erl, erlLibs, erlc };
}

/** The tested configuration, as committed. */
export const EJABBERD_TEMPLATE_PATH = join(REPO_ROOT, "ejabberd", "ejabberd.yml");
/** The project's ejabberd module (keeps protocol messages in a room's archive), as source. */
export const KEEP_PROTOCOL_SOURCE = join(REPO_ROOT, "ejabberd", "mod_muc_keep_protocol.erl");

/**
 * The template with its two macros set: the domain and the client port. Nothing else is
 * changed, so the tests run exactly what an operator is given.
 */
export function ejabberdConfig(template: string, values: { domain: string; port: number }): string {
  const set = (text: string, macro: string, value: string): string => {
    const line = new RegExp(`^(\\s+'${macro}':\\s*).*$`, "m");
    if (!line.test(text)) throw new Error(`the ejabberd template defines no macro ${macro}`);
    return text.replace(line, `$1${value}`);
  };
  return set(set(template, "MFR_DOMAIN", JSON.stringify(values.domain)), "MFR_C2S_PORT", String(values.port));
}
