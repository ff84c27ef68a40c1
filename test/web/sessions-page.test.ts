/** The sessions page says, per protocol room, whether it keeps agents' protocol messages. */
import { describe, expect, it } from "vitest";
import { sessionsPage } from "../../src/web/sessions-page.js";

describe("the sessions page's rooms", () => {
  it("lists each room's keeping with its note, escaped; none given, no section", () => {
    const page = String(
      sessionsPage([], undefined, 0, [
        { room: "mfr@conference.example", keeping: "kept", note: "mfr@conference.example keeps agents' protocol messages" },
        { room: "r<1>@conference.example", keeping: "not kept", note: "r<1>@conference.example does not keep agents' protocol messages" },
      ]),
    );
    expect(page).toContain('<li class="keeping keeping-kept" data-room="mfr@conference.example" data-keeping="kept">');
    expect(page).toContain('data-keeping="not kept">r&lt;1&gt;@conference.example does not keep');
    expect(String(sessionsPage([], undefined, 0))).not.toContain('id="rooms"');
  });
});
