/** Instants as the room reads them, in the few sentences that name a time of day. */

/** `10:02:03`, UTC, with the date in front when it is not today's. */
export function clockTime(at: number, now: number = Date.now()): string {
  const iso = new Date(at).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return sameDay ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
