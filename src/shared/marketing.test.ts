import { describe, expect, it } from "vitest";
import { categoryOf, hasOptOutInstruction, marketingSmsBody, OPT_OUT_LINES, smsBodyFor } from "./marketing";
import { fitsOneSegment, smsEncoding } from "./sms";

describe("marketing SMS opt-out line", () => {
  it("is appended in the message's language when the text has none", () => {
    expect(marketingSmsBody("New blocks in Miami tonight", "en")).toBe("New blocks in Miami tonight\nReply STOP to opt out");
    expect(marketingSmsBody("Bloques nuevos hoy", "es")).toBe("Bloques nuevos hoy\nResponde STOP para darte de baja");
  });

  it("is not added twice when the text already says how to stop", () => {
    expect(marketingSmsBody("Offer inside. Txt STOP to end", "en")).toBe("Offer inside. Txt STOP to end");
    expect(marketingSmsBody("Oferta. Envía BAJA para salir", "es")).toBe("Oferta. Envía BAJA para salir");
    expect(hasOptOutInstruction("Don't stop now")).toBe(false); // lower-case prose is not an instruction
  });

  it("words both lines in the GSM-7 alphabet, so the line never turns a text into UTF-16", () => {
    for (const line of Object.values(OPT_OUT_LINES)) expect(smsEncoding(line), line).toBe("GSM_7BIT");
    // A Spanish admin with "Limit characters" on keeps 160 less the line and its newline, not 70 less it.
    const es = smsBodyFor("a".repeat(160 - OPT_OUT_LINES.es.length - 1), "marketing", "es");
    expect(es.count).toMatchObject({ encoding: "GSM_7BIT", messages: 1, remaining: 0 });
  });

  it("counts in the one-segment limit, in the admin's encoding", () => {
    const en = smsBodyFor("a".repeat(160 - OPT_OUT_LINES.en.length - 1), "marketing", "en");
    expect(en.count).toMatchObject({ encoding: "GSM_7BIT", messages: 1, remaining: 0 });
    expect(fitsOneSegment(smsBodyFor("a".repeat(160 - OPT_OUT_LINES.en.length), "marketing", "en").body)).toBe(false);
    const es = smsBodyFor("¿Mañana? Sí", "marketing", "es");
    expect(es.count).toMatchObject({ encoding: "UTF16", length: 11 + 1 + OPT_OUT_LINES.es.length, unicodeCharacter: "í" });
  });

  it("leaves transactional texts as written", () => {
    expect(smsBodyFor("  Your payment was received  ", "payment", "en").body).toBe("Your payment was received");
    expect(categoryOf("code")).toBe("transactional");
    expect(categoryOf("marketing")).toBe("marketing");
  });
});
