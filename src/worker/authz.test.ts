/**
 * Who may call what: every API route, with the status each kind of caller gets. The table must
 * list every route the app has (a new route without a row fails the coverage test, `.all()` routes
 * included), so adding an endpoint means deciding its access here, in one line. Permissions that
 * depend on the request body (lifting the SMS limit, creating an administrator) have rows of their
 * own below the table, with a body that gets past validation.
 *
 * Requests carry no payload (`{}` for writes, no query) and made-up path ids, so an allowed caller
 * usually gets the route's validation error (400) or a not-found (404) rather than a change;
 * what matters is where 401/403 stop the others.
 */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "./app";
import { auditLog, campaignMessages, campaigns, invitations } from "./db/schema";
import { call, createUser, db, seedAdmin, seedUser, tokenFor, uniquePhone } from "./test/fixtures";
import { methodsOf, registeredRoutes } from "./test/routes";

/**
 * `owner`: the owner role with the billingDetails permission; `ownerNoBilling`: the owner role
 * without it; `billingAdmin`: an administrator with billingDetails who is not the owner;
 * `support`: an administrator with neither. `unverified` holds a session from before unconfirmed
 * accounts stopped getting tokens.
 */
const CALLERS = ["anonymous", "unverified", "driver", "owner", "ownerNoBilling", "billingAdmin", "support"] as const;
type Caller = (typeof CALLERS)[number];
type Expected = Record<Caller, number>;
type Row = { method: string; path: string; expected: Expected; request?: { path?: string; body?: unknown } };

const admins = (status: number) => ({ owner: status, ownerNoBilling: status, billingAdmin: status, support: status });
/** Open to anyone (identity, health, and webhooks, which check a provider signature instead). */
const open = (status: number): Expected => ({ anonymous: status, unverified: status, driver: status, ...admins(status) });
/** Any signed-in user with a confirmed phone. */
const signedIn = (status: number): Expected => ({ anonymous: 401, unverified: 403, driver: status, ...admins(status) });
/** Administrators only. */
const adminOnly = (status: number): Expected => ({ anonymous: 401, unverified: 403, driver: 403, ...admins(status) });
/** Administrators whose role has the billingDetails permission. */
const billingOnly = (status: number): Expected => ({ ...adminOnly(status), ownerNoBilling: 403, support: 403 });
/** The owner role with the billingDetails permission. */
const billingOwner = (status: number): Expected => ({ ...billingOnly(status), billingAdmin: 403 });
/** The owner role, whatever its other permissions. */
const ownerOnly = (status: number): Expected => ({ ...adminOnly(status), billingAdmin: 403, support: 403 });

const route = (method: string, path: string, expected: Expected, request?: Row["request"]): Row => ({ method, path, expected, request });

// One line per route: method, path as the app registers it, expected status per caller.
const ROUTES: Row[] = [
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
  route("GET", "/api/driver/offers", signedIn(200)),
  route("POST", "/api/driver/offers/:id/arrive", signedIn(404)),
  route("POST", "/api/driver/offers/:id/forfeit", signedIn(404)),
  route("GET", "/api/driver/insights", signedIn(200)),
  route("POST", "/api/driver/insights/what-if", signedIn(400)),
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

  route("POST", "/api/webhooks/twilio/status", open(401)),
  route("POST", "/api/webhooks/twilio/inbound", open(401)),
  route("GET", "/api/webhooks/whatsapp", open(403)),
  route("POST", "/api/webhooks/whatsapp", open(401)),
  route("POST", "/api/webhooks/stripe", open(401)),
];

/**
 * A request that passes validation, so what answers is the permission the body asks for. `shows`:
 * billing data the answer holds for the callers listed and for no one else (a search by a
 * referral code finds the person only for them; a code or a template name is in the answer only
 * for them). Paths that name seeded rows are functions, read once the rows exist.
 */
type BodyRule = {
  name: string;
  method: string;
  path: string | (() => string);
  body: (caller: Caller) => unknown;
  expected: Expected;
  shows?: { text: () => string; to: readonly Caller[] };
};

/** Who has billingDetails among the callers. */
const BILLING_CALLERS = ["owner", "billingAdmin"] as const satisfies readonly Caller[];

/**
 * Billing data seeded for the rows below: an invitee who signed up with a reseller's referral code
 * (invited by a driver), a dropped sign-up that named the code, and a WhatsApp campaign that
 * reached the invitee with a template.
 */
const seeded = { code: "", inviteeName: "", inviteeId: 0, campaignId: 0, template: "" };

const BODY_RULES: BodyRule[] = [
  {
    name: "lifting the one-segment SMS limit",
    method: "POST",
    path: "/api/admin/campaigns",
    body: (caller) => ({
      idempotencyKey: `authz-lift-${caller}-${crypto.randomUUID()}`,
      source: "list",
      channel: "sms",
      purpose: "service",
      message: "A message longer than one segment. ".repeat(6),
      phones: [uniquePhone()],
      liftLimit: true,
    }),
    expected: ownerOnly(201),
  },
  {
    name: "creating an administrator",
    method: "POST",
    path: "/api/admin/users",
    body: () => ({ phoneNumber: uniquePhone(), app: "flex", name: "New Admin", isAdmin: true, roleName: "support" }),
    expected: ownerOnly(201),
  },
  {
    name: "sending a WhatsApp template (the template list is billing data)",
    method: "POST",
    path: "/api/admin/campaigns",
    body: (caller) => ({
      idempotencyKey: `authz-wa-${caller}-${crypto.randomUUID()}`,
      source: "list",
      channel: "whatsapp",
      purpose: "service",
      template: { name: AUTHZ_TEMPLATE, language: "en_US" },
      phones: [uniquePhone()],
    }),
    expected: billingOnly(201),
  },
  {
    name: "filtering an audience by referral code (the referral list is billing data)",
    method: "GET",
    path: "/api/admin/audience?app=flex&referral=AUTHZREF",
    body: () => undefined,
    expected: billingOnly(200),
  },
  // The users page, its export and the old all-users tables: referral codes are billing data.
  ...["/api/admin/users", "/api/admin/users/export.csv", "/api/flex/v1/all-users-table", "/api/spark/v1/admin/all-users-table"].flatMap((path) => [
    { name: `filtering by referral code (${path})`, method: "GET", path: `${path}?referral=AUTHZREF`, body: () => undefined, expected: billingOnly(200) },
    { name: `sorting by referral code (${path})`, method: "GET", path: `${path}?sort=referral`, body: () => undefined, expected: billingOnly(200) },
  ]),
  {
    name: "sorting the review by referral code",
    method: "GET",
    path: "/api/admin/audience?app=flex&sort=referral",
    body: () => undefined,
    expected: billingOnly(200),
  },
  // Referral codes in searches and audit entries, WhatsApp template names: billing data.
  ...["/api/admin/audience?app=flex", "/api/admin/audience/review?app=flex", "/api/admin/invitation-audience?", "/api/admin/invitation-audience/review?"].map(
    (path) => ({
      name: `a review's rules naming a WhatsApp template (${path.split("?")[0]})`,
      method: "GET",
      path: () => `${path}&channel=whatsapp&purpose=service&templateName=${AUTHZ_TEMPLATE}&templateLanguage=en_US`,
      body: () => undefined,
      expected: billingOnly(200),
    }),
  ),
  {
    name: "searching the invitations list by referral code",
    method: "GET",
    path: () => `/api/admin/invitations?search=${seeded.code}`,
    body: () => undefined,
    expected: adminOnly(200),
    shows: { text: () => seeded.inviteeName, to: BILLING_CALLERS },
  },
  {
    name: "searching the invitation audience by referral code",
    method: "GET",
    path: () => `/api/admin/invitation-audience?search=${seeded.code}`,
    body: () => undefined,
    expected: adminOnly(200),
    shows: { text: () => seeded.inviteeName, to: BILLING_CALLERS },
  },
  {
    name: "counting the invitation audience by referral code (its review)",
    method: "GET",
    path: () => `/api/admin/invitation-audience/review?search=${seeded.code}&channel=sms&purpose=service`,
    body: () => undefined,
    expected: adminOnly(200),
    shows: { text: () => '"total":1', to: BILLING_CALLERS },
  },
  {
    name: "an invitation campaign chosen by referral code",
    method: "POST",
    path: "/api/admin/campaigns",
    body: (caller) => ({
      idempotencyKey: `authz-invite-code-${caller}-${crypto.randomUUID()}`,
      source: "invitations",
      channel: "sms",
      purpose: "service",
      message: "A short notice.",
      audience: { search: seeded.code },
    }),
    // Without billingDetails the code finds nobody: the audience is empty.
    expected: { ...billingOnly(201), ownerNoBilling: 422, support: 422 },
  },
  {
    name: "a dropped sign-up's referral code in the audit log",
    method: "GET",
    path: () => `/api/admin/audit?action=auth.signup_dropped&target=user:${seeded.inviteeId}`,
    body: () => undefined,
    expected: adminOnly(200),
    shows: { text: () => seeded.code, to: BILLING_CALLERS },
  },
  {
    name: "a dropped sign-up's referral code in the user's audit entries",
    method: "GET",
    path: () => `/api/admin/users/${seeded.inviteeId}/audit`,
    body: () => undefined,
    expected: adminOnly(200),
    shows: { text: () => seeded.code, to: BILLING_CALLERS },
  },
  ...[
    { name: "a campaign's WhatsApp template (campaign page)", path: () => `/api/admin/campaigns/${seeded.campaignId}` },
    { name: "a campaign's WhatsApp template (campaigns list)", path: () => "/api/admin/campaigns?pageSize=100" },
    { name: "the WhatsApp template of a user's message (user page)", path: () => `/api/admin/users/${seeded.inviteeId}/messages` },
  ].map(({ name, path }) => ({
    name,
    method: "GET",
    path,
    body: () => undefined,
    expected: adminOnly(200),
    shows: { text: () => seeded.template, to: BILLING_CALLERS },
  })),
  {
    name: "creating a driver account",
    method: "POST",
    path: "/api/admin/users",
    body: () => ({ phoneNumber: uniquePhone(), app: "flex", name: "New Driver" }),
    expected: adminOnly(201),
  },
];

/**
 * Actions whose target is an administrator's account: the owner's alone (support must not sign the
 * owner out or edit them). Each caller acts on a fresh administrator of its own, with a valid body.
 */
type TargetRule = { name: string; method: string; path: (id: number) => string; body: unknown; expected: Expected };

const ADMIN_TARGET_RULES: TargetRule[] = [
  { name: "editing the profile", method: "PATCH", path: (id) => `/api/admin/users/${id}`, body: { name: "Renamed Admin" }, expected: ownerOnly(200) },
  {
    name: "signing out everywhere",
    method: "POST",
    path: (id) => `/api/admin/users/${id}/sign-out`,
    body: { reason: "authz check" },
    expected: ownerOnly(200),
  },
  { name: "opt-outs", method: "PUT", path: (id) => `/api/admin/users/${id}/opt-outs`, body: { sms: true, whatsapp: false }, expected: ownerOnly(200) },
  {
    name: "resetting the authenticator",
    method: "POST",
    path: (id) => `/api/admin/users/${id}/reset-totp`,
    body: { reason: "authz check" },
    expected: ownerOnly(200),
  },
  {
    name: "changing the role",
    method: "PUT",
    path: (id) => `/api/admin/users/${id}/role`,
    body: { isAdmin: true, roleName: "auditor", billingDetails: false },
    expected: ownerOnly(200),
  },
  {
    name: "adjusting service time",
    method: "POST",
    path: (id) => `/api/admin/billing/users/${id}/service-time`,
    body: { days: 3, reason: "authz check" },
    expected: billingOwner(201),
  },
];

/** A concrete URL for a pattern: `:id` (with or without a `{regex}`) becomes a made-up number, `*` a word. */
function samplePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]\w*(\{[^}]*\})?/g, "987654321").replace(/\*/g, "sample");
}

const tokens: Partial<Record<Caller, string>> = {};
const AUTHZ_TEMPLATE = `authz_${crypto.randomUUID().slice(0, 8)}`;

/**
 * The callers' sessions are real refresh families with their ID tokens (tokenFor), made without the
 * password sign-in: this file checks who may call what, and the PBKDF2 work of seven sign-ins made
 * its hook the slowest in the suite (0.9 s alone, past 10 s on a busy clean-clone run).
 */
beforeAll(async () => {
  await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', '[]')")
    .bind(`tpl-${AUTHZ_TEMPLATE}`, AUTHZ_TEMPLATE)
    .run();
  const unverified = await createUser({ phoneVerified: false });
  tokens.unverified = await tokenFor({ ...unverified, phoneVerified: false });
  tokens.driver = await tokenFor(await createUser());
  const admin = async (roleName: string, billingDetails: boolean) => tokenFor(await createUser({ isAdmin: true, roleName, billingDetails }), { isAdmin: true });
  tokens.owner = await admin("owner", true);
  tokens.ownerNoBilling = await admin("owner", false);
  tokens.billingAdmin = await admin("billing", true);
  tokens.support = await admin("support", false);

  seeded.code = `AUTHZCODE${crypto
    .randomUUID()
    .replace(/[^a-f]/g, "")
    .slice(0, 8)
    .toUpperCase()}`;
  seeded.inviteeName = `Invitee ${crypto.randomUUID().slice(0, 8)}`;
  seeded.template = `authz_secret_${crypto.randomUUID().slice(0, 8)}`;
  const inviter = await seedUser({ password: null, name: "Authz Inviter" });
  const invitee = await seedUser({ password: null, name: seeded.inviteeName, referralCode: seeded.code });
  seeded.inviteeId = invitee.id;
  await db.insert(invitations).values({ inviterId: inviter.id, app: "flex", phone: invitee.phone, invitedAt: Date.now() - 60_000 });
  await db.insert(auditLog).values({
    actorId: null,
    action: "auth.signup_dropped",
    target: `user:${invitee.id}`,
    details: { via: "reset", referralCode: seeded.code, invitedBy: null },
  });
  const author = await seedAdmin({ password: null });
  const campaign = await db
    .insert(campaigns)
    .values({
      app: "flex",
      channel: "whatsapp",
      source: "list",
      template: { name: seeded.template, language: "en_US" },
      audience: { source: "list", phones: [invitee.phone], app: "flex" },
      authorId: author.id,
      idempotencyKey: crypto.randomUUID(),
      status: "done",
      category: "transactional",
      purpose: "service",
      total: 1,
    })
    .returning()
    .get();
  seeded.campaignId = campaign.id;
  await db.insert(campaignMessages).values({ campaignId: campaign.id, userId: invitee.id, phone: invitee.phone, name: invitee.name, status: "delivered" });
});

async function expectAnswer(method: string, path: string, body: unknown, caller: Caller, expected: number, shows?: BodyRule["shows"]) {
  const res = await call(path, { method, body, token: tokens[caller] });
  const text = await res.text();
  expect(res.status, `${method} ${path} as ${caller}: ${text}`).toBe(expected);
  // Every refusal is the one error envelope.
  if (res.status >= 400) expect(JSON.parse(text) as object).toHaveProperty("error.code");
  if (shows) expect(text.includes(shows.text()), `${method} ${path} as ${caller} shows ${shows.text()}: ${text}`).toBe(shows.to.includes(caller));
}

describe("authorization table", () => {
  it("lists every route the app has, `.all()` ones included, and only those", () => {
    const listed = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    const registered = registeredRoutes(app).map((r) => `${r.method} ${r.path}`);
    const missing = registered.filter((key) => !listed.has(key));
    const stale = [...listed].filter((key) => !registered.includes(key));
    expect(missing, "routes without a row in ROUTES (add one line each)").toEqual([]);
    expect(stale, "rows in ROUTES for routes that no longer exist").toEqual([]);
    expect(listed.size, "duplicate rows in ROUTES").toBe(ROUTES.length);
  });

  it("sees handlers registered with .all() (and not middleware)", () => {
    const sample = new Hono().use(async (_c, next) => next()).all("/anything", (c) => c.text("ok"));
    expect(registeredRoutes(sample)).toEqual([{ method: "ALL", path: "/anything" }]);
  });

  describe.each(ROUTES)("$method $path", (row) => {
    it.each(CALLERS)("answers %s callers as listed", async (caller) => {
      for (const method of methodsOf(row.method)) {
        const body = row.request?.body ?? (method === "GET" ? undefined : {});
        await expectAnswer(method, row.request?.path ?? samplePath(row.path), body, caller, row.expected[caller]);
      }
    });
  });
});

describe("actions on an administrator's account", () => {
  describe.each(ADMIN_TARGET_RULES)("$name ($method)", (rule) => {
    it.each(CALLERS)("answers %s callers as listed", async (caller) => {
      const target = await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false }, password: null });
      await expectAnswer(rule.method, rule.path(target.id), rule.body, caller, rule.expected[caller]);
    });
  });

  it("leaves drivers' accounts to every administrator", async () => {
    for (const rule of ADMIN_TARGET_RULES.filter((r) => !r.path(1).includes("/reset-totp") && !r.path(1).includes("/role"))) {
      const target = await seedUser({ password: null });
      const caller = rule.path(1).includes("/billing/") ? "billingAdmin" : "support";
      await expectAnswer(rule.method, rule.path(target.id), rule.body, caller, rule.expected.owner);
    }
  });
});

describe("permissions that depend on the body", () => {
  describe.each(BODY_RULES)("$name ($method)", (rule) => {
    it.each(CALLERS)("answers %s callers as listed", async (caller) => {
      const path = typeof rule.path === "string" ? rule.path : rule.path();
      await expectAnswer(rule.method, path, rule.body(caller), caller, rule.expected[caller], rule.shows);
    });
  });
});
