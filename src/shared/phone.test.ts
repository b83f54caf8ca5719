import { describe, expect, it } from "vitest";
import { phoneSchema } from "./auth";
import {
  checkSmsPhone,
  formatPhoneAsTyped,
  formatUsPhone,
  maskPhone,
  normalizeUsPhone,
  numericString,
  PHONE_REFUSAL_CODES,
  PHONE_REFUSAL_MESSAGES,
  PHONE_REFUSALS,
} from "./phone";
import { VALIDATION_MESSAGES } from "./validation";

describe("normalizeUsPhone", () => {
  it("accepts what people type and answers E.164", () => {
    for (const input of [
      "(305) 555-0100",
      "305.555.0100",
      "305-555-0100",
      "305 555 0100",
      "3055550100",
      "13055550100",
      "1 305 555 0100",
      "+1 305 555 0100",
      "+1 (305) 555-0100",
      "+13055550100",
      "  3055550100  ",
    ]) {
      expect(normalizeUsPhone(input), input).toBe("+13055550100");
    }
  });

  it("accepts Canadian numbers (same plan)", () => {
    expect(normalizeUsPhone("416 555 0199")).toBe("+14165550199");
  });

  it("refuses the wrong number of digits", () => {
    for (const input of ["", "555-0100", "305555010", "305555010000", "113055550100", "23055550100"]) expect(normalizeUsPhone(input), input).toBeNull();
  });

  it("refuses area codes and exchanges that start with 0 or 1", () => {
    for (const input of ["0305550100", "1305550100", "3050550100", "3051550100", "10305550100", "11305550100"])
      expect(normalizeUsPhone(input), input).toBeNull();
  });

  it("refuses letters and other symbols", () => {
    for (const input of ["305-555-01OO", "305 555 0100 ext 2", "305/555/0100", "305_555_0100", "tel:3055550100"])
      expect(normalizeUsPhone(input), input).toBeNull();
  });

  it("reads a leading + as a country code: only +1 is ours", () => {
    expect(normalizeUsPhone("+3055550100")).toBeNull();
    expect(normalizeUsPhone("+30 555 550 100")).toBeNull();
    expect(normalizeUsPhone("+44 20 7946 0958")).toBeNull();
    expect(normalizeUsPhone("305+555+0100")).toBeNull();
    expect(normalizeUsPhone("++13055550100")).toBeNull();
  });
});

describe("formatUsPhone (the phone display of docs/product.md, validation)", () => {
  it("shows +1 (xxx) xxx-xxxx for 10 digits with or without the leading 1", () => {
    expect(formatUsPhone("3055550100")).toBe("+1 (305) 555-0100");
    expect(formatUsPhone("+13055550100")).toBe("+1 (305) 555-0100");
    expect(formatUsPhone("1-305-555-0100")).toBe("+1 (305) 555-0100");
  });

  it("is empty otherwise", () => {
    for (const input of [null, undefined, "", "555-0100", "23055550100", "113055550100"]) expect(formatUsPhone(input)).toBe("");
  });
});

describe("numericString (the numeric helper the old product had)", () => {
  it("answers the digits as an integer string", () => {
    expect(numericString("(305) 555-0100")).toBe("3055550100");
    expect(numericString("007")).toBe("7");
    expect(numericString("000")).toBe("0");
    expect(numericString("99999999999999999999")).toBe("99999999999999999999");
  });

  it("is empty without digits", () => {
    expect(numericString("")).toBe("");
    expect(numericString(null)).toBe("");
    expect(numericString(undefined)).toBe("");
    expect(numericString("abc")).toBe("");
  });
});

describe("maskPhone", () => {
  it("keeps the last four digits", () => {
    expect(maskPhone("+13055550100")).toBe("•••0100");
  });
});

describe("checkSmsPhone: US and Canadian numbers that can receive our texts", () => {
  it("accepts numbers of the 50 states, DC and Canada in every typed form", () => {
    for (const [input, e164] of [
      ["(305) 555-0100", "+13055550100"],
      ["+1 212 555 0143", "+12125550143"],
      ["202.555.0188", "+12025550188"],
      ["1-907-555-0123", "+19075550123"],
      ["416 555 0199", "+14165550199"],
      ["(867) 555-0100", "+18675550100"],
      ["+1 (332) 555-0100", "+13325550100"],
    ]) {
      expect(checkSmsPhone(input!), input).toEqual({ ok: true, e164 });
    }
  });

  it("says why a number cannot be texted", () => {
    for (const [input, reason] of [
      ["555-0100", "format"],
      ["+44 20 7946 0958", "format"],
      ["(305) 555-01OO", "format"],
      ["(011) 555-0100", "area_code"],
      ["(111) 555-0100", "area_code"],
      ["(211) 555-0100", "area_code"],
      ["(911) 555-0100", "area_code"],
      ["(305) 055-0100", "exchange"],
      ["(305) 155-0100", "exchange"],
      ["(305) 911-0100", "exchange"],
      ["(305) 411-0100", "exchange"],
      ["(800) 555-0100", "toll_free"],
      ["(833) 555-0100", "toll_free"],
      ["(888) 555-0100", "toll_free"],
      ["(877) 555-0100", "toll_free"],
      ["(900) 555-0100", "premium"],
      ["(876) 555-0100", "outside_us_canada"],
      ["(809) 555-0100", "outside_us_canada"],
      ["(242) 555-0100", "outside_us_canada"],
      ["(473) 555-0100", "outside_us_canada"],
      ["(787) 555-0100", "outside_us_canada"],
      ["(671) 555-0100", "outside_us_canada"],
      ["(555) 555-0100", "not_in_service"],
      ["(999) 555-0100", "not_in_service"],
      ["(500) 555-0100", "not_in_service"],
      ["(600) 555-0100", "not_in_service"],
      ["(700) 555-0100", "not_in_service"],
      ["(296) 555-0100", "not_in_service"],
    ] as const) {
      expect(checkSmsPhone(input), input).toEqual({ ok: false, reason });
    }
  });

  it("gives every refusal its code and words, and the shared schema reports the code", () => {
    for (const reason of PHONE_REFUSALS) {
      expect(PHONE_REFUSAL_MESSAGES[reason]).toBe(VALIDATION_MESSAGES[PHONE_REFUSAL_CODES[reason]]);
      expect(PHONE_REFUSAL_MESSAGES[reason]).toMatch(/\w/);
    }
    const parsed = phoneSchema.safeParse("(800) 555-0100");
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ message: "phoneTollFree", params: { reason: "toll_free" } });
    expect(phoneSchema.parse("(305) 555-0100")).toBe("+13055550100");
  });
});

describe("formatPhoneAsTyped", () => {
  it("formats each step of typing as +1 (xxx) xxx-xxxx", () => {
    const typed = "3055550100";
    const steps = [...typed].map((_, i) => formatPhoneAsTyped(typed.slice(0, i + 1)));
    expect(steps).toEqual([
      "+1 (3",
      "+1 (30",
      "+1 (305",
      "+1 (305) 5",
      "+1 (305) 55",
      "+1 (305) 555",
      "+1 (305) 555-0",
      "+1 (305) 555-01",
      "+1 (305) 555-010",
      "+1 (305) 555-0100",
    ]);
  });

  it("reads a leading 1 or +1 as the country code and reformats pasted numbers", () => {
    expect(formatPhoneAsTyped("1")).toBe("+1");
    expect(formatPhoneAsTyped("+1")).toBe("+1");
    expect(formatPhoneAsTyped("+1 305")).toBe("+1 (305");
    expect(formatPhoneAsTyped("13055550100")).toBe("+1 (305) 555-0100");
    expect(formatPhoneAsTyped("305.555.0100")).toBe("+1 (305) 555-0100");
    expect(formatPhoneAsTyped("+1 (305) 555-01009")).toBe("+1 (305) 555-0100");
  });

  it("lets a deletion through: removing the last digit of a group removes its punctuation", () => {
    expect(formatPhoneAsTyped("+1 (305) ")).toBe("+1 (305");
    expect(formatPhoneAsTyped("+1 (305) 555-")).toBe("+1 (305) 555");
    expect(formatPhoneAsTyped("+1 ")).toBe("+1");
    expect(formatPhoneAsTyped("+")).toBe("+");
    expect(formatPhoneAsTyped("")).toBe("");
  });

  it("gives what normalizeUsPhone accepts", () => {
    expect(normalizeUsPhone(formatPhoneAsTyped("3055550100"))).toBe("+13055550100");
  });
});
