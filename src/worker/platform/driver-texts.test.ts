/**
 * The texts the engine sends a driver: the wording in each language, times in the station's zone,
 * and nothing at all to a driver who opted out.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createLogger } from "../log";
import { disconnectedMessage, textDisconnected, textWonBlock, wonBlockMessage } from "./driver-texts";

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

describe("sending", () => {
  const log = createLogger({ task: "test" });
  const optedOut = { phone: "+15005550006", language: "en" as const, app: "flex" as const, smsOptOut: true };
  it("sends nothing to a driver who opted out", () => {
    expect(textWonBlock(env, log, optedOut, block)).toBeNull();
    expect(textDisconnected(env, log, optedOut)).toBeNull();
  });
});
