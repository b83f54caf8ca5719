/**
 * Who may call what: every API route, with the status each kind of caller gets. The table must
 * list every route the app has (a new route without a row fails the coverage test), so adding an
 * endpoint means deciding its access here, in one line.
 *
 * Requests carry no payload (`{}` for writes, no query) and made-up path ids, so an allowed caller
 * usually gets the route's validation error (400) or a not-found (404) rather than a change;
 * what matters is where 401/403 stop the others.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "./app";
import { call, seedAdmin, seedUser, signIn, signInAdmin } from "./auth/test-fixtures";

/** `admin` is an owner with the billingDetails permission; `support` an administrator without it. */
type Caller = "anonymous" | "unverified" | "driver" | "admin" | "support";
type Expected = Record<Caller, number>;
type Row = { method: string; path: string; expected: Expected; request?: { path?: string; body?: unknown } };

/** Open to anyone (identity, health, and webhooks, which check a provider signature instead). */
const open = (status: number): Expected => ({ anonymous: status, unverified: status, driver: status, admin: status, support: status });
/** Any signed-in user, confirmed phone or not. */
const signedIn = (status: number): Expected => ({ anonymous: 401, unverified: status, driver: status, admin: status, support: status });
/** Signed in with a confirmed phone number. */
const verified = (status: number): Expected => ({ anonymous: 401, unverified: 403, driver: status, admin: status, support: status });
/** Administrators only. */
const adminOnly = (status: number): Expected => ({ anonymous: 401, unverified: 403, driver: 403, admin: status, support: status });
/** The owner role (`admin` here is the owner, `support` is not). */
const ownerOnly = (status: number): Expected => ({ ...adminOnly(status), support: 403 });
/** Administrators whose role has the billingDetails permission. */
const billingOnly = (status: number): Expected => ({ ...adminOnly(status), support: 403 });

const route = (method: string, path: string, expected: Expected, request?: Row["request"]): Row => ({ method, path, expected, request });

// One line per route: method, path as the app registers it, expected status per caller.
const ROUTES: Row[] = [
  route("GET", "/api/status/health", open(200)),
  route("GET", "/api/status/site", open(200)),

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

  route("GET", "/api/driver/connection", verified(200)),
  route("POST", "/api/driver/connection", verified(400)),
  route("POST", "/api/driver/connection/code", verified(400)),
  route("POST", "/api/driver/connection/approval", verified(400)),
  route("DELETE", "/api/driver/connection/attempts/:id", verified(400)),
  route("DELETE", "/api/driver/connection", verified(200)),
  // Not connected to the platform yet: a conflict, not a platform call.
  route("GET", "/api/driver/stations", verified(409)),
  route("GET", "/api/driver/filters", verified(200)),
  route("PUT", "/api/driver/filters", verified(400)),
  route("GET", "/api/driver/engine", verified(200)),
  route("POST", "/api/driver/engine", verified(400)),
  route("GET", "/api/driver/offers", verified(200)),
  route("POST", "/api/driver/offers/:id/arrive", verified(404)),
  route("POST", "/api/driver/offers/:id/forfeit", verified(404)),
  route("GET", "/api/driver/calendar", verified(400)),
  // Another driver's calendar: administrators (an unknown number is then a 404); a driver is refused.
  route(
    "GET",
    "/api/driver/calendar/:phoneNumber",
    { anonymous: 401, unverified: 403, driver: 403, admin: 404, support: 404 },
    { path: "/api/driver/calendar/%2B12025550123?week=2031-05-15" },
  ),

  route("GET", "/api/plans", open(200)),
  route("POST", "/api/payments/checkout", verified(400)),
  route("GET", "/api/payments", verified(200)),
  route("GET", "/api/payments/service-time", verified(200)),
  route("GET", "/api/payments/:id{[0-9]+}", verified(404)),
  route("POST", "/api/payments/:id{[0-9]+}/cancel", verified(404)),
  route("GET", "/api/invitations", verified(200)),
  route("POST", "/api/invitations", verified(400)),
  route("GET", "/api/reseller", verified(200)),
  route("POST", "/api/reseller/apply", verified(400)),
  // Only approved resellers get further than this.
  route("POST", "/api/reseller/onboarding", verified(403)),
  route("POST", "/api/reseller/onboarding/refresh", verified(403)),
  route("GET", "/api/reseller/clients", verified(403)),
  route("GET", "/api/reseller/commissions", verified(403)),
  // The embedded provider's checkout and onboarding pages: open, like Stripe's; an unknown id is 404.
  route("GET", "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}", open(404)),
  route("POST", "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}/pay", open(404)),
  route("POST", "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}/cancel", open(404)),
  route("GET", "/api/local-stripe/onboarding/:id{link_local_[0-9a-f]{24}}", open(404)),
  route("POST", "/api/local-stripe/onboarding/:id{link_local_[0-9a-f]{24}}/complete", open(404)),

  route("GET", "/api/admin/billing/payments", billingOnly(200)),
  route("GET", "/api/admin/billing/payments/export.csv", billingOnly(200)),
  route("POST", "/api/admin/billing/payments/:id/refund", billingOnly(404)),
  route("GET", "/api/admin/billing/plans", billingOnly(200)),
  // Plans are the owner's ("admin" here is the owner).
  route("POST", "/api/admin/billing/plans", billingOnly(400)),
  route("PATCH", "/api/admin/billing/plans/:id", billingOnly(400)),
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
  route("POST", "/api/admin/users/:id/reset-totp", ownerOnly(400)),
  route("PUT", "/api/admin/users/:id/role", ownerOnly(400)),
  route("PUT", "/api/admin/users/:id/opt-outs", adminOnly(400)),
  route("GET", "/api/admin/users/:id/messages", adminOnly(404)),
  route("GET", "/api/admin/users/:id/audit", adminOnly(404)),
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

  route("POST", "/api/webhooks/twilio/status", open(401)),
  route("POST", "/api/webhooks/twilio/inbound", open(401)),
  route("GET", "/api/webhooks/whatsapp", open(403)),
  route("POST", "/api/webhooks/whatsapp", open(401)),
  route("POST", "/api/webhooks/stripe", open(401)),
];

/** The routes the app really has: one entry per method and path, middleware ("ALL") left out. */
function registeredRoutes(): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const r of app.routes) {
    if (r.method === "ALL") continue;
    seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  }
  return [...seen.values()];
}

/** A concrete URL for a pattern: `:id` (with or without a `{regex}`) becomes a made-up number, `*` a word. */
function samplePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]\w*(\{[^}]*\})?/g, "987654321").replace(/\*/g, "sample");
}

const tokens: Partial<Record<Caller, string>> = {};

beforeAll(async () => {
  const unverified = await seedUser({ phoneVerified: false });
  const driver = await seedUser();
  const admin = await seedAdmin({ roleName: "owner", roleProperties: { billingDetails: true } });
  const support = await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false } });
  tokens.unverified = (await signIn(unverified)).idToken;
  tokens.driver = (await signIn(driver)).idToken;
  tokens.admin = (await signInAdmin(admin)).idToken;
  tokens.support = (await signInAdmin(support)).idToken;
});

describe("authorization table", () => {
  it("lists every route the app has, and only those", () => {
    const listed = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    const registered = registeredRoutes().map((r) => `${r.method} ${r.path}`);
    const missing = registered.filter((key) => !listed.has(key));
    const stale = [...listed].filter((key) => !registered.includes(key));
    expect(missing, "routes without a row in ROUTES (add one line each)").toEqual([]);
    expect(stale, "rows in ROUTES for routes that no longer exist").toEqual([]);
    expect(listed.size, "duplicate rows in ROUTES").toBe(ROUTES.length);
  });

  describe.each(ROUTES)("$method $path", (row) => {
    it.each(["anonymous", "unverified", "driver", "admin", "support"] as const)("answers %s callers as listed", async (caller) => {
      const body = row.request?.body ?? (row.method === "GET" ? undefined : {});
      const res = await call(row.request?.path ?? samplePath(row.path), { method: row.method, body, token: tokens[caller] });
      expect(res.status, `${row.method} ${row.path} as ${caller}: ${await res.clone().text()}`).toBe(row.expected[caller]);
      // Every refusal is the one error envelope.
      if (res.status >= 400) expect((await res.json()) as object).toHaveProperty("error.code");
    });
  });
});
