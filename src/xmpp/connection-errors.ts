/**
 * What went wrong with the connection to the XMPP server, in words for the log, and the one
 * failure that retrying will not mend: a refused login. Shared by the connection and its
 * reconnection policy (reconnection.ts), so both say the same thing of the same error.
 */

/** Authentication was refused: retrying will not help, the operator must fix the credentials. */
export class AuthenticationError extends Error {
  override name = "AuthenticationError";
}

/** Whether the server refused the login itself (SASL), as opposed to being out of reach. */
export function isAuthFailure(err: unknown): boolean {
  const condition = (err as { condition?: string }).condition;
  return condition === "not-authorized" || condition === "account-disabled" || condition === "credentials-expired" || (err as Error)?.name === "SASLError";
}

/** An error as one log field: its XMPP condition first where it has one, then its message. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const condition = (err as { condition?: string }).condition;
    return condition ? `${condition}${err.message && err.message !== condition ? `: ${err.message}` : ""}` : err.message || err.name;
  }
  return String(err);
}
