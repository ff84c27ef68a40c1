/**
 * A configuration problem, phrased as one line an operator can act on:
 * `<where>: <field>: expected <what>[, got <value>]`.
 */
export class ConfigError extends Error {
  constructor(
    readonly where: string,
    readonly field: string,
    /** The whole phrase: "expected …", "is missing: …", "is not readable …". */
    readonly problem: string,
    readonly got?: string,
  ) {
    super(`${where}: ${field}: ${problem}${got === undefined ? "" : `, got ${got}`}`);
    this.name = "ConfigError";
  }
}

/** Shows a received value briefly and safely in a one-line message. */
export function shown(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
