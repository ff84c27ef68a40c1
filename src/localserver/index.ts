/** A throw-away Prosody XMPP server on loopback (demo and tests). */
export {
  startLocalProsody,
  DEFAULT_STANZA_SIZE_LIMIT,
  PROSODY_READ_SIZE,
  MIN_STANZA_SIZE_LIMIT,
  LOCAL_DOMAIN,
  LOCAL_HOST,
  LOCAL_MUC_DOMAIN,
  type LocalProsody,
  type StartLocalProsodyOptions,
} from "./server.js";
export { ensureProsody, ProsodyNotInstalledError, PROSODY_INSTALL_COMMAND, type EnsureProsodyOptions } from "./install.js";
export { findOnPath, installedProsodyVersion, locateProsody, type ProsodyCommands } from "./locate.js";
export { registerAccount, RegistrationError, type RegisterAccountOptions } from "./register.js";
export { canConnect, pickFreePort } from "./port.js";
export { findRepoRoot, localConfigPath } from "./paths.js";
