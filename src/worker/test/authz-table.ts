/**
 * The authorization table: who may call what, every API route with the status each kind of caller
 * gets. The table must list every route the app has (a new route without a row fails the coverage
 * test in authz.test.ts, `.all()` routes included), so adding an endpoint means deciding its access
 * here, in one line, in USER_ROUTES or ADMIN_ROUTES. Permissions that depend on the request body
 * (lifting the SMS limit, creating an administrator) have rows of their own in
 * authz-body-rules.test.ts, actions on an administrator's account in authz-admin.test.ts.
 *
 * Requests carry no payload (`{}` for writes, no query) and made-up path ids, so an allowed caller
 * usually gets the route's validation error (400) or a not-found (404) rather than a change;
 * what matters is where 401/403 stop the others.
 */
import { describe, expect, it } from "vitest";
import { call, createUser, tokenFor } from "./fixtures";
import { methodsOf } from "./routes";

/**
 * `owner`: the owner role with the billingDetails permission; `ownerNoBilling`: the owner role
 * without it; `billingAdmin`: an administrator with billingDetails who is not the owner;
 * `support`: an administrator with neither. `unverified` holds a session from before unconfirmed
 * accounts stopped getting tokens.
 */
export const CALLERS = ["anonymous", "unverified", "driver", "owner", "ownerNoBilling", "billingAdmin", "support"] as const;
export type Caller = (typeof CALLERS)[number];
export type Expected = Record<Caller, number>;
type Row = { method: string; path: string; expected: Expected; request?: { path?: string; body?: unknown } };

const admins = (status: number) => ({ owner: status, ownerNoBilling: status, billingAdmin: status, support: status });
/** Open to anyone (identity, health, and webhooks, which check a provider signature instead). */
const open = (status: number): Expected => ({ anonymous: status, unverified: status, driver: status, ...admins(status) });
/** Any signed-in user with a confirmed phone. */
const signedIn = (status: number): Expected => ({ anonymous: 401, unverified: 403, driver: status, ...admins(status) });
/** Administrators only. */
export const adminOnly = (status: number): Expected => ({ anonymous: 401, unverified: 403, driver: 403, ...admins(status) });
/** Administrators whose role has the billingDetails permission. */
export const billingOnly = (status: number): Expected => ({ ...adminOnly(status), ownerNoBilling: 403, support: 403 });
/** The owner role with the billingDetails permission. */
export const billingOwner = (status: number): Expected => ({ ...billingOnly(status), billingAdmin: 403 });
/** The owner role, whatever its other permissions. */
export const ownerOnly = (status: number): Expected => ({ ...adminOnly(status), billingAdmin: 403, support: 403 });

const route = (method: string, path: string, expected: Expected, request?: Row["request"]): Row => ({ method, path, expected, request });

// One line per route: method, path as the app registers it, expected status per caller.
// The routes open to anyone or to signed-in users: status, identity, the driver's, payments, webhooks.
export const USER_ROUTES: Row[] = [
  route("GET", "/api/status/health", open(200)),
  route("GET", "/api/status/site", open(200)),
  // The generated API reference: open outside production (a 404 there).
  route("GET", "/api/openapi.json", open(200)),

  route("POST", "/api/auth/register", open(400)),
  route("POST", "/api/auth/confirm", open(400)),
  route("POST", "/api/auth/resend-code", open(400)),
  route("POST", "/api/auth/sign-in", open(400)),
  route("POST", "/api/auth/respond", open(400)),
  route("POST", "/api/auth/refresh", open(400)),
  route("POST", "/api/auth/sign-out", open(400)),
  route("POST", "/api/auth/forgot-password", open(400)),
  route("POST", "/api/auth/reset-password", open(400)),
  route("POST", "/api/auth/change-password", signedIn(400)),
  route("PATCH", "/api/auth/me", signedIn(400)),

  route("POST", "/api/contact", open(400)),

  route("GET", "/api/flex/v1/user", signedIn(200)),
  route("GET", "/api/flex/v1/user/chat", signedIn(200)),
  // The account's own data: a copy, and its deletion (administrators are deleted by the owner, 409).
  route("GET", "/api/account/export", signedIn(200)),
  route("POST", "/api/account/delete/start", { ...signedIn(200), ...admins(409) }),
  route("POST", "/api/account/delete", signedIn(400)),

  route("GET", "/api/driver/connection", signedIn(200)),
  route("POST", "/api/driver/connection", signedIn(400)),
  route("POST", "/api/driver/connection/code", signedIn(400)),
  route("POST", "/api/driver/connection/approval", signedIn(400)),
  // Flex: a new attempt at the platform's sign-in page (no input), and its landing address pasted back.
  route("POST", "/api/driver/connection/sign-in", signedIn(201)),
  route("POST", "/api/driver/connection/landing", signedIn(400)),
  route("DELETE", "/api/driver/connection/attempts/:id", signedIn(400)),
  route("DELETE", "/api/driver/connection", signedIn(200)),
  // Not connected to the platform yet: a conflict, not a platform call.
  route("GET", "/api/driver/stations", signedIn(409)),
  route("PUT", "/api/driver/stations/:id/time-zone", signedIn(400)),
  // A station the platform did not list for this driver.
  route("DELETE", "/api/driver/stations/:id/time-zone", signedIn(404)),
  route("GET", "/api/driver/filters", signedIn(200)),
  route("PUT", "/api/driver/filters", signedIn(400)),
  route("GET", "/api/driver/engine", signedIn(200)),
  route("POST", "/api/driver/engine", signedIn(400)),
  // The driver says they solved the platform's captcha: a 409 when accepting is not held for one.
  route("POST", "/api/driver/engine/captcha-solved", signedIn(409)),
  route("POST", "/api/driver/live-ticket", signedIn(201)),
  // The live dashboard's socket: opened with a ticket, not a session (without the upgrade header, 426 for everyone).
  route("GET", "/api/driver/live", open(426)),
  route("GET", "/api/driver/offers", signedIn(200)),
  route("POST", "/api/driver/offers/:id/arrive", signedIn(404)),
  route("POST", "/api/driver/offers/:id/forfeit", signedIn(404)),
  route("GET", "/api/driver/insights", signedIn(200)),
  route("POST", "/api/driver/insights/what-if", signedIn(400)),
  route("GET", "/api/driver/notifications", signedIn(200)),
  route("PUT", "/api/driver/notifications", signedIn(400)),
  route("PUT", "/api/driver/push-subscription", signedIn(400)),
  route("DELETE", "/api/driver/push-subscription", signedIn(400)),
  route("GET", "/api/driver/calendar", signedIn(400)),
  // Another driver's calendar: administrators (an unknown number is then a 404); a driver is refused.
  route("GET", "/api/driver/calendar/:phoneNumber", adminOnly(404), { path: "/api/driver/calendar/%2B12025550123?week=2031-05-15" }),

  route("GET", "/api/plans", open(200)),
  route("POST", "/api/payments/checkout", signedIn(400)),
  route("GET", "/api/payments", signedIn(200)),
  route("GET", "/api/payments/service-time", signedIn(200)),
  route("GET", "/api/payments/:id{[0-9]+}", signedIn(404)),
  route("POST", "/api/payments/:id{[0-9]+}/cancel", signedIn(404)),
  route("GET", "/api/invitations", signedIn(200)),
  route("POST", "/api/invitations", signedIn(400)),
  route("GET", "/api/reseller", signedIn(200)),
  route("POST", "/api/reseller/apply", signedIn(400)),
  // Only approved resellers get further than this.
  route("POST", "/api/reseller/onboarding", signedIn(403)),
  route("POST", "/api/reseller/onboarding/refresh", signedIn(403)),
  route("GET", "/api/reseller/clients", signedIn(403)),
  route("GET", "/api/reseller/commissions", signedIn(403)),
  // The embedded provider's checkout and onboarding pages: open, like Stripe's; an unknown id is 404.
  route("GET", "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}", open(404)),
  route("POST", "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}/pay", open(404)),
  route("POST", "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}/cancel", open(404)),
  route("GET", "/api/local-stripe/onboarding/:id{link_local_[0-9a-f]{24}}", open(404)),
  route("POST", "/api/local-stripe/onboarding/:id{link_local_[0-9a-f]{24}}/complete", open(404)),

  route("POST", "/api/webhooks/twilio/status", open(401)),
  route("POST", "/api/webhooks/twilio/inbound", open(401)),
  route("GET", "/api/webhooks/whatsapp", open(403)),
  route("POST", "/api/webhooks/whatsapp", open(401)),
  route("POST", "/api/webhooks/stripe", open(401)),
];

/** The console's routes, and the old all-users tables and sends it replaced. */
export const ADMIN_ROUTES: Row[] = [
  route("GET", "/api/admin/billing/payments", billingOnly(200)),
  route("GET", "/api/admin/billing/payments/export.csv", billingOnly(200)),
  route("POST", "/api/admin/billing/payments/:id/refund", billingOnly(404)),
  route("GET", "/api/admin/billing/plans", billingOnly(200)),
  // Plans are the owner's, and billing's.
  route("POST", "/api/admin/billing/plans", billingOwner(400)),
  route("PATCH", "/api/admin/billing/plans/:id", billingOwner(400)),
  route("GET", "/api/admin/billing/commissions", billingOnly(200)),
  route("GET", "/api/admin/billing/resellers", billingOnly(200)),
  route("POST", "/api/admin/billing/resellers/:id/approve", billingOnly(404)),
  route("POST", "/api/admin/billing/resellers/:id/reject", billingOnly(404)),
  route("POST", "/api/admin/billing/resellers/:id/revoke", billingOnly(404)),
  route("GET", "/api/admin/billing/users/:id/service-time", billingOnly(404)),
  route("POST", "/api/admin/billing/users/:id/service-time", billingOnly(400)),

  route("POST", "/api/admin/users", adminOnly(400)),
  route("GET", "/api/admin/users", adminOnly(200)),
  route("GET", "/api/admin/users/export.csv", adminOnly(200)),
  route("GET", "/api/admin/users/:id", adminOnly(404)),
  route("PATCH", "/api/admin/users/:id", adminOnly(400)),
  route("GET", "/api/admin/users/:id/sessions", adminOnly(404)),
  route("POST", "/api/admin/users/:id/sign-out", adminOnly(400)),
  // Erasing for a written request: billing admins for drivers, the owner for administrators (account.test.ts has the rows by body).
  route("POST", "/api/admin/users/:id/erase", adminOnly(400)),
  route("POST", "/api/admin/users/:id/reset-totp", ownerOnly(400)),
  route("PUT", "/api/admin/users/:id/role", ownerOnly(400)),
  route("PUT", "/api/admin/users/:id/opt-outs", adminOnly(400)),
  route("GET", "/api/admin/users/:id/messages", adminOnly(404)),
  route("GET", "/api/admin/users/:id/audit", adminOnly(404)),
  // A driver's dashboard, "acting for" them: every administrator may view it and switch the system.
  // Opening it is audited (the body names the screen).
  route("POST", "/api/admin/users/:id/acting-for", adminOnly(400)),
  route("GET", "/api/admin/users/:id/dashboard/engine", adminOnly(404)),
  route("GET", "/api/admin/users/:id/dashboard/offers", adminOnly(404)),
  route("GET", "/api/admin/users/:id/dashboard/insights", adminOnly(404)),
  route("GET", "/api/admin/users/:id/dashboard/notifications", adminOnly(404)),
  route("POST", "/api/admin/users/:id/dashboard/insights/what-if", adminOnly(400)),
  route("POST", "/api/admin/users/:id/dashboard/engine", adminOnly(400)),
  // Clearing a driver's signature hold (a 420 from the platform): any administrator, audited.
  route("POST", "/api/admin/users/:id/engine/clear-hold", adminOnly(404)),
  route("GET", "/api/admin/dashboard", adminOnly(200)),
  route("GET", "/api/admin/dashboard/series", adminOnly(200)),
  route("GET", "/api/admin/invitations", adminOnly(200)),
  route("GET", "/api/admin/leads", adminOnly(200)),
  route("PATCH", "/api/admin/leads/:id", adminOnly(400)),
  route("GET", "/api/admin/audit", adminOnly(200)),
  route("GET", "/api/admin/audit/actions", adminOnly(200)),
  route("GET", "/api/admin/audience", adminOnly(200)),
  // The review's summary needs the channel and purpose it is checked against.
  route("GET", "/api/admin/audience/review", adminOnly(400)),
  route("GET", "/api/admin/invitation-audience/review", adminOnly(400)),
  route("GET", "/api/admin/consent/:phone", adminOnly(400)),
  route("GET", "/api/admin/invitation-audience", adminOnly(200)),
  route("GET", "/api/admin/regions", adminOnly(200)),
  route("GET", "/api/admin/settings", adminOnly(200)),
  route("GET", "/api/admin/outbox", adminOnly(200)),
  route("POST", "/api/admin/campaigns", adminOnly(400)),
  route("GET", "/api/admin/campaigns", adminOnly(200)),
  route("GET", "/api/admin/campaigns/:id", adminOnly(404)),
  route("GET", "/api/admin/campaigns/:id/messages", adminOnly(404)),
  route("POST", "/api/admin/campaigns/:id/retry-failed", adminOnly(404)),
  route("POST", "/api/admin/campaigns/:id/cancel", adminOnly(404)),
  route("GET", "/api/admin/campaigns/:id/export.csv", adminOnly(404)),

  route("GET", "/api/flex/v1/all-users-table", adminOnly(200)),
  route("GET", "/api/spark/v1/admin/all-users-table", adminOnly(200)),
  route("GET", "/api/flex/v1/admin/invitations", adminOnly(200)),
  route("GET", "/api/flex/v1/admin/referrals", billingOnly(200)),
  route("GET", "/api/flex/v1/admin/sendWhatsapp", billingOnly(200)),
  route("POST", "/api/flex/v1/admin/sendsms", adminOnly(400)),
  route("POST", "/api/flex/v1/admin/sendWhatsapp", adminOnly(400)),
];

/** Every route, as the coverage test checks them against the app's. */
export const ROUTES: Row[] = [...USER_ROUTES, ...ADMIN_ROUTES];

/** A concrete URL for a pattern: `:id` (with or without a `{regex}`) becomes a made-up number, `*` a word. */
function samplePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]\w*(\{[^}]*\})?/g, "987654321").replace(/\*/g, "sample");
}

const tokens: Partial<Record<Caller, string>> = {};

/**
 * The callers' sessions are real refresh families with their ID tokens (tokenFor), made without the
 * password sign-in: these files check who may call what, and the PBKDF2 work of seven sign-ins made
 * the hook the slowest in the suite (0.9 s alone, past 10 s on a busy clean-clone run).
 */
export async function startCallerSessions() {
  const unverified = await createUser({ phoneVerified: false });
  tokens.unverified = await tokenFor({ ...unverified, phoneVerified: false });
  tokens.driver = await tokenFor(await createUser());
  const admin = async (roleName: string, billingDetails: boolean) => tokenFor(await createUser({ isAdmin: true, roleName, billingDetails }), { isAdmin: true });
  tokens.owner = await admin("owner", true);
  tokens.ownerNoBilling = await admin("owner", false);
  tokens.billingAdmin = await admin("billing", true);
  tokens.support = await admin("support", false);
}

/**
 * Billing data an answer holds for the callers listed and for no one else (a search by a referral
 * code finds the person only for them; a code or a template name is in the answer only for them).
 */
export type Shows = { text: () => string; to: readonly Caller[] };

export async function expectAnswer(method: string, path: string, body: unknown, caller: Caller, expected: number, shows?: Shows) {
  const res = await call(path, { method, body, token: tokens[caller] });
  const text = await res.text();
  expect(res.status, `${method} ${path} as ${caller}: ${text}`).toBe(expected);
  // Every refusal is the one error envelope.
  if (res.status >= 400) expect(JSON.parse(text) as object).toHaveProperty("error.code");
  if (shows) expect(text.includes(shows.text()), `${method} ${path} as ${caller} shows ${shows.text()}: ${text}`).toBe(shows.to.includes(caller));
}

/** For each row, a test per caller: the status it gets for each of the row's methods. */
export function answersAsListed(rows: Row[]) {
  describe.each(rows)("$method $path", (row) => {
    it.each(CALLERS)("answers %s callers as listed", async (caller) => {
      for (const method of methodsOf(row.method)) {
        const body = row.request?.body ?? (method === "GET" ? undefined : {});
        await expectAnswer(method, row.request?.path ?? samplePath(row.path), body, caller, row.expected[caller]);
      }
    });
  });
}
