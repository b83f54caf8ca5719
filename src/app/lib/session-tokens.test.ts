import { describe, expect, it } from "vitest";
import { decodeClaims, EXPIRY_SKEW_MS, isExpired, REFRESH_LEAD_MS, refreshDelay } from "./session-tokens";

/** base64url of the value's JSON as UTF-8 bytes, as a JWT encodes its parts. */
const b64url = (value: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
const jwt = (claims: unknown) => `${b64url({ alg: "ES256" })}.${b64url(claims)}.sig`;
const NOW = 1_800_000_000_000;
const exp = (fromNowMs: number) => Math.floor((NOW + fromNowMs) / 1000);

describe("decodeClaims", () => {
  it.each([
    [
      "a full set of claims",
      jwt({ sub: "7", sid: "s1", exp: 100, phone_number: "+13055550123", phone_number_verified: true, app: "spark", is_admin: true }),
      { sub: "7", sid: "s1", exp: 100, phone_number: "+13055550123", phone_number_verified: true, app: "spark", is_admin: true },
    ],
    [
      "defaults for what is missing",
      jwt({ sub: "7", exp: 100 }),
      { sub: "7", sid: "", exp: 100, phone_number: "", phone_number_verified: false, app: "flex", is_admin: false },
    ],
    [
      "only true is true, only spark is spark",
      jwt({ sub: "7", exp: 100, phone_number_verified: "yes", is_admin: 1, app: "other" }),
      { sub: "7", sid: "", exp: 100, phone_number: "", phone_number_verified: false, app: "flex", is_admin: false },
    ],
    [
      "non-ASCII claims (UTF-8)",
      jwt({ sub: "ñandú", exp: 1 }),
      { sub: "ñandú", sid: "", exp: 1, phone_number: "", phone_number_verified: false, app: "flex", is_admin: false },
    ],
  ])("reads %s", (_, token, claims) => {
    expect(decodeClaims(token)).toEqual(claims);
  });

  it.each([
    ["no sub", jwt({ exp: 100 })],
    ["no exp", jwt({ sub: "7" })],
    ["a string exp", jwt({ sub: "7", exp: "100" })],
    ["two parts", `${b64url({})}.${b64url({ sub: "7", exp: 1 })}`],
    ["a payload that is not JSON", `${b64url({})}.bm90IGpzb24.sig`],
    ["a payload that is not an object", `${b64url({})}.${b64url([1, 2])}.sig`],
    ["not a JWT", "opaque"],
    ["nothing", ""],
  ])("refuses %s", (_, token) => {
    expect(decodeClaims(token)).toBeNull();
  });
});

describe("isExpired, with the skew", () => {
  it.each([
    ["an hour left", 3_600_000, false],
    ["just over the skew left", EXPIRY_SKEW_MS + 1000, false],
    ["exactly the skew left", EXPIRY_SKEW_MS, true],
    ["inside the skew", EXPIRY_SKEW_MS - 1000, true],
    ["past", -60_000, true],
  ])("%s: %s", (_, left, expired) => {
    expect(isExpired(jwt({ sub: "7", exp: exp(left) }), NOW)).toBe(expired);
  });

  it("counts an unreadable token as expired", () => {
    expect(isExpired("opaque", NOW)).toBe(true);
  });
});

describe("refreshDelay", () => {
  it.each([
    [60 * 60_000, 60 * 60_000 - REFRESH_LEAD_MS],
    [REFRESH_LEAD_MS + 1000, 1000],
    [REFRESH_LEAD_MS - 1000, 0],
    [-60_000, 0],
  ])("with %i ms left: %i", (left, delay) => {
    expect(refreshDelay(jwt({ sub: "7", exp: exp(left) }), NOW)).toBe(delay);
  });
});
