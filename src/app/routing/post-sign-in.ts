import type { IdClaims } from "../../shared/auth";
import type { User } from "../lib/session";

/**
 * Post-sign-in routing (docs/product.md, routes), as a pure function of the session so it can be tested
 * rule by rule. The guard component (Guard.tsx) performs what it decides.
 *
 * Levels, from most open to most demanding:
 * - guest:    /login, /register, /forgot-password: open; a signed-in visitor is sent on.
 * - confirm:  /confirm-account: open, and the place for an unverified session.
 * - signedIn: the optional-redirect screens (/payment, /profile…, /flex/login…): rules 1–2 only.
 * - settings: /flex/settings: rules 1–3 (an account must be connected first).
 * - full:     /flex/dashboard and the other driver screens: rules 1–5.
 * - admin:    /admin/*: a session and an administrator; anyone else signed in is told they have
 *             no access (a page, not a silent bounce).
 *
 * A signed-out visitor sent away from a guarded screen is remembered (resume.ts), and signing in
 * resumes there: a deep link to /admin/users/42 survives the sign-in.
 */
export type GuardLevel = "guest" | "confirm" | "signedIn" | "settings" | "full" | "admin";

export type RoutingUser = Pick<User, "isAdmin" | "accountConnected" | "setupComplete" | "goodStanding" | "phoneNumberVerified">;

export type RoutingInput = {
  loading: boolean;
  claims: Pick<IdClaims, "phone_number" | "phone_number_verified" | "app"> | null;
  user: RoutingUser | null;
  error: Error | null;
  /** The screen a signed-out visitor was sent away from: where sign-in resumes. */
  resume?: string | null;
};

export type ConfirmState = { phoneNumber: string; app: "flex" | "spark"; reason: "unverified" };

export type Decision =
  | { kind: "allow" }
  | { kind: "wait" }
  | { kind: "error" }
  /** `remember`: a signed-out visitor leaving a guarded screen; sign-in comes back to it. */
  | { kind: "redirect"; to: string; remember?: true }
  /** A signed-in non-administrator on an admin screen. */
  | { kind: "forbidden" }
  /** Rule 2: resend a code (failure only logged), then go to /confirm-account with the phone. */
  | { kind: "confirm"; to: "/confirm-account"; state: ConfirmState };

const allow: Decision = { kind: "allow" };
const wait: Decision = { kind: "wait" };
const redirect = (to: string): Decision => ({ kind: "redirect", to });

// Verification only ever goes one way, so either source saying "verified" is the fresher truth
// (the token says so after the next refresh, the user row at once).
function verified(input: RoutingInput): boolean {
  return input.claims?.phone_number_verified === true || input.user?.phoneNumberVerified === true;
}

function confirm(input: RoutingInput): Decision {
  return { kind: "confirm", to: "/confirm-account", state: { phoneNumber: input.claims!.phone_number, app: input.claims!.app, reason: "unverified" } };
}

/** The user is needed from here on: wait for it, or report that it could not be loaded. */
function needUser(input: RoutingInput): Decision | null {
  if (input.user) return null;
  return input.error ? { kind: "error" } : wait;
}

/** Where a signed-in person belongs, in the product's order; `search` is the current query string. */
export function landingDecision(input: RoutingInput, search = ""): Decision {
  if (input.loading) return wait;
  // 1. No session.
  if (!input.claims) return redirect("/");
  // 2. Phone number not verified.
  if (!verified(input)) return confirm(input);
  const pending = needUser(input);
  if (pending) return pending;
  const user = input.user!;
  // A deep link opened before signing in; its own guard applies the rules that follow.
  if (input.resume) return redirect(input.resume);
  // Administrators land on their console.
  if (user.isAdmin) return redirect("/admin");
  return driverRules(user, search, "full") ?? redirect("/flex/dashboard");
}

/** Rules 3–5 up to a level; null when the user may stay. */
function driverRules(user: RoutingUser, search: string, level: "signedIn" | "settings" | "full"): Decision | null {
  if (level === "signedIn") return null;
  // 3. Account not connected.
  if (!user.accountConnected) return redirect("/flex/login");
  if (level === "settings") return null;
  // 4. Connected but setup incomplete.
  if (!user.setupComplete) return redirect("/flex/settings");
  // 5. Not in good standing: to payment, keeping the query string.
  if (!user.goodStanding) return redirect(`/payment${search}`);
  return null;
}

/** What a screen of the given level does for this session. */
export function decide(level: GuardLevel, input: RoutingInput, search = ""): Decision {
  if (input.loading) return wait;
  const signedIn = input.claims !== null;

  if (level === "guest") return signedIn ? landingDecision(input, search) : allow;
  if (level === "confirm") return signedIn && verified(input) ? landingDecision(input, search) : allow;

  // 1. Every other screen needs a session.
  if (!signedIn) return { kind: "redirect", to: "/", remember: true };

  if (level === "admin") {
    const pending = needUser(input);
    if (pending) return pending;
    return input.user!.isAdmin ? allow : { kind: "forbidden" };
  }

  // 2. A phone number to confirm comes before anything else.
  if (!verified(input)) return confirm(input);
  const pending = needUser(input);
  if (pending) return pending;
  return driverRules(input.user!, search, level) ?? allow;
}
