/**
 * What the engine tells a driver: the wording in each language, times in the station's zone, and
 * the stopped search's texts within one GSM-7 segment with the longest origin allowed. (That nothing
 * is texted to a driver who opted out is notifications/notify.test.ts's.)
 */
import { describe, expect, it } from "vitest";
import { countSms, fitsOneSegment } from "../../shared/sms";
import { APP_ORIGIN_MAX_LENGTH } from "../config";
import { disconnectedMessage, type SearchStop, searchStoppedNotification, wonBlockMessage, wonBlockNotification } from "./driver-texts";

// 8:00–11:00 on Wednesday 12 March 2031 in Los Angeles (15:00–18:00 UTC).
const block = {
  stationName: "Test DLA9",
  startsAt: Date.parse("2031-03-12T08:00:00-07:00"),
  endsAt: Date.parse("2031-03-12T11:00:00-07:00"),
  payCents: 7250,
  timeZone: "America/Los_Angeles",
};
// Intl may put a narrow no-break space before AM/PM: compare with plain spaces.
const plain = (text: string) => text.replace(/\s/g, " ");

describe("wonBlockMessage", () => {
  it("in English, at the station's time", () => {
    expect(plain(wonBlockMessage("en", block))).toBe("Blockpilot: you won a block at Test DLA9, Wed, Mar 12, 8:00 AM–11:00 AM, $72.50. Reply STOP to opt out.");
  });
  it("in Spanish", () => {
    expect(plain(wonBlockMessage("es", block))).toBe(
      "Blockpilot: ganaste un bloque en Test DLA9, mié, 12 de mar, 8:00 a.m.–11:00 a.m., $72.50. Responde STOP para no recibir mensajes.",
    );
  });
  it("read in another zone, the same instants show other hours", () => {
    expect(plain(wonBlockMessage("en", { ...block, timeZone: "America/New_York" }))).toContain("Wed, Mar 12, 11:00 AM–2:00 PM");
  });
});

describe("disconnectedMessage", () => {
  const rows: [Parameters<typeof disconnectedMessage>, string][] = [
    [
      ["en", "flex", "https://app.example"],
      "Blockpilot: Flex ended the connection to your account, so the system stopped. Connect it again at https://app.example/flex/login",
    ],
    [
      ["en", "spark", "https://app.example/"],
      "Blockpilot: Spark ended the connection to your account, so the system stopped. Connect it again at https://app.example/flex/login",
    ],
    [
      ["es", "flex", "https://app.example"],
      "Blockpilot: Flex cerró la conexión con tu cuenta y el sistema se detuvo. Vuelve a conectarla en https://app.example/flex/login",
    ],
  ];
  for (const [args, text] of rows) {
    it(`${args[0]}, ${args[1]}, origin ${args[2]}`, () => {
      expect(disconnectedMessage(...args)).toBe(text);
    });
  }
});

describe("the notifications", () => {
  it("a block won: the SMS is the text above, the push names the station, the span and the pay; one key per offer", () => {
    const content = wonBlockNotification(7, { ...block, platformOfferId: "offer-1" });
    expect(content.key).toBe("blockWon:7:offer-1");
    expect(content.url).toBe("/flex/dashboard");
    const words = content.words("es");
    expect(words.sms).toBe(wonBlockMessage("es", block));
    expect(words.title).toBe("Bloque ganado: Test DLA9");
    expect(plain(words.body)).toBe("mié, 12 de mar, 8:00 a.m.–11:00 a.m., $72.50");
  });

  // The longest origin config.ts allows: every link texted starts with it.
  const origin = `https://${"a".repeat(APP_ORIGIN_MAX_LENGTH - "https://".length)}`;
  const since = Date.parse("2031-03-12T15:00:00Z");
  const stops: SearchStop[] = [
    { reason: "rate_limited", since, until: since + 30 * 60_000 },
    { reason: "captcha", since },
    { reason: "signature", since },
  ];
  for (const stop of stops) {
    for (const language of ["en", "es"] as const) {
      it(`the search stopped (${stop.reason}), ${language}: one GSM-7 segment`, () => {
        const { sms, title, body } = searchStoppedNotification(7, "flex", origin, stop).words(language);
        expect(countSms(sms), sms).toMatchObject({ encoding: "GSM_7BIT", messages: 1 });
        expect(title.length).toBeGreaterThan(0);
        expect(body.length).toBeGreaterThan(0);
      });
    }
  }

  it("the search stopped: the lockout says how long, once per occurrence (its key has the time it began)", () => {
    const content = searchStoppedNotification(7, "spark", origin, stops[0]!);
    expect(content.key).toBe(`searchStopped:7:rate_limited:${since}`);
    expect(content.words("en").sms).toContain("Spark is limiting your account, so the search is paused for about 30 min.");
    expect(content.words("es").sms).toContain("unos 30 min");
    expect(searchStoppedNotification(7, "flex", origin, { reason: "captcha", since: since + 1 }).key).not.toBe(
      searchStoppedNotification(7, "flex", origin, { reason: "captcha", since }).key,
    );
  });

  it("the connection ended: the SMS is the text above (one segment in English)", () => {
    const content = searchStoppedNotification(7, "flex", origin, { reason: "disconnected", since });
    expect(content.words("en").sms).toBe(disconnectedMessage("en", "flex", origin));
    expect(fitsOneSegment(content.words("en").sms)).toBe(true);
    expect(content.words("es").sms).toBe(disconnectedMessage("es", "flex", origin));
  });
});
