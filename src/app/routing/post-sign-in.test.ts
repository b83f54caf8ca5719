import { describe, expect, it } from "vitest";
import { decide, landingDecision, type RoutingInput, type RoutingUser } from "./post-sign-in";

const claims = { phone_number: "+13055550123", phone_number_verified: true, app: "flex" as const };
const ready: RoutingUser = { isAdmin: false, accountConnected: true, setupComplete: true, goodStanding: true, phoneNumberVerified: true };

function input(over: Partial<RoutingInput> = {}, user: Partial<RoutingUser> | null = {}): RoutingInput {
  return { loading: false, claims, user: user === null ? null : { ...ready, ...user }, error: null, ...over };
}

describe("post-sign-in routing, in the product's order", () => {
  it("1. no session → /", () => {
    expect(landingDecision(input({ claims: null }, null))).toEqual({ kind: "redirect", to: "/" });
  });

  it("2. phone not verified → a code is resent and /confirm-account gets the phone", () => {
    const unverified = input(
      { claims: { ...claims, phone_number_verified: false } },
      { phoneNumberVerified: false, accountConnected: false, setupComplete: false, goodStanding: false },
    );
    expect(landingDecision(unverified)).toEqual({
      kind: "confirm",
      to: "/confirm-account",
      state: { phoneNumber: "+13055550123", app: "flex", reason: "unverified" },
    });
  });

  it("2. does not wait for the user when the token already says unverified", () => {
    expect(landingDecision(input({ claims: { ...claims, phone_number_verified: false } }, null)).kind).toBe("confirm");
  });

  it("2. a user row that says verified beats a token issued before confirming", () => {
    expect(landingDecision(input({ claims: { ...claims, phone_number_verified: false } }, {}))).toEqual({ kind: "redirect", to: "/flex/dashboard" });
  });

  it("3. account not connected → /flex/login (before setup and standing)", () => {
    expect(landingDecision(input({}, { accountConnected: false, setupComplete: false, goodStanding: false }))).toEqual({ kind: "redirect", to: "/flex/login" });
  });

  it("4. setup incomplete → /flex/settings (before standing)", () => {
    expect(landingDecision(input({}, { setupComplete: false, goodStanding: false }))).toEqual({ kind: "redirect", to: "/flex/settings" });
  });

  it("5. not in good standing → /payment, keeping the query string", () => {
    expect(landingDecision(input({}, { goodStanding: false }), "?plan=weekly&ref=MIAMI10")).toEqual({
      kind: "redirect",
      to: "/payment?plan=weekly&ref=MIAMI10",
    });
    expect(landingDecision(input({}, { goodStanding: false }))).toEqual({ kind: "redirect", to: "/payment" });
  });

  it("6. otherwise → /flex/dashboard", () => {
    expect(landingDecision(input())).toEqual({ kind: "redirect", to: "/flex/dashboard" });
  });

  it("a remembered deep link comes before the usual landing, after the phone is confirmed", () => {
    expect(landingDecision(input({ resume: "/admin/users/42" }, { isAdmin: true }))).toEqual({ kind: "redirect", to: "/admin/users/42" });
    expect(landingDecision(input({ resume: "/flex/calendar" }))).toEqual({ kind: "redirect", to: "/flex/calendar" });
    expect(landingDecision(input({ resume: "/admin", claims: { ...claims, phone_number_verified: false } }, null)).kind).toBe("confirm");
  });

  it("an administrator lands on /admin", () => {
    expect(landingDecision(input({}, { isAdmin: true, accountConnected: false }))).toEqual({ kind: "redirect", to: "/admin" });
  });

  it("waits while the session or the user loads, and reports a user that failed to load", () => {
    expect(landingDecision(input({ loading: true }))).toEqual({ kind: "wait" });
    expect(landingDecision(input({}, null))).toEqual({ kind: "wait" });
    expect(landingDecision(input({ error: new Error("boom") }, null))).toEqual({ kind: "error" });
  });
});

describe("screens by level", () => {
  it("guest screens are open without a session and send a signed-in person on", () => {
    expect(decide("guest", input({ claims: null }, null))).toEqual({ kind: "allow" });
    expect(decide("guest", input({}, { accountConnected: false }))).toEqual({ kind: "redirect", to: "/flex/login" });
  });

  it("/confirm-account is open without a session and to an unverified one", () => {
    expect(decide("confirm", input({ claims: null }, null))).toEqual({ kind: "allow" });
    expect(decide("confirm", input({ claims: { ...claims, phone_number_verified: false } }, null))).toEqual({ kind: "allow" });
    expect(decide("confirm", input())).toEqual({ kind: "redirect", to: "/flex/dashboard" });
  });

  it("optional-redirect screens only need a session with a confirmed phone", () => {
    const worst = input({}, { accountConnected: false, setupComplete: false, goodStanding: false });
    expect(decide("signedIn", worst)).toEqual({ kind: "allow" });
    expect(decide("signedIn", input({ claims: null }, null))).toEqual({ kind: "redirect", to: "/", remember: true });
    expect(decide("signedIn", input({ claims: { ...claims, phone_number_verified: false } }, null)).kind).toBe("confirm");
  });

  it("/flex/settings needs a connected account only", () => {
    expect(decide("settings", input({}, { setupComplete: false, goodStanding: false }))).toEqual({ kind: "allow" });
    expect(decide("settings", input({}, { accountConnected: false }))).toEqual({ kind: "redirect", to: "/flex/login" });
  });

  it("driver screens apply every rule", () => {
    expect(decide("full", input({}, { goodStanding: false }), "?x=1")).toEqual({ kind: "redirect", to: "/payment?x=1" });
    expect(decide("full", input())).toEqual({ kind: "allow" });
  });

  it("admin screens tell a signed-in non-admin they have no access, and send a visitor to / (remembering where)", () => {
    expect(decide("admin", input())).toEqual({ kind: "forbidden" });
    expect(decide("admin", input({ claims: null }, null))).toEqual({ kind: "redirect", to: "/", remember: true });
    expect(decide("admin", input({}, { isAdmin: true }))).toEqual({ kind: "allow" });
    expect(decide("admin", input({}, null))).toEqual({ kind: "wait" });
  });
});
