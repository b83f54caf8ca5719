/**
 * Who may call what, where the permission depends on the request body (lifting the SMS limit,
 * creating an administrator) or on what the answer holds: requests that pass validation, checked
 * for every kind of caller of the authorization table (test/authz-table.ts).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, it } from "vitest";
import { auditLog, campaignMessages, campaigns, invitations } from "./db/schema";
import { adminOnly, billingOnly, CALLERS, type Caller, type Expected, expectAnswer, ownerOnly, type Shows, startCallerSessions } from "./test/authz-table";
import { db, seedAdmin, seedUser, uniquePhone } from "./test/fixtures";

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
  shows?: Shows;
};

/** Who has billingDetails among the callers. */
const BILLING_CALLERS = ["owner", "billingAdmin"] as const satisfies readonly Caller[];

/**
 * Billing data seeded for the rows below: an invitee who signed up with a reseller's referral code
 * (invited by a driver), a dropped sign-up that named the code, and a WhatsApp campaign that
 * reached the invitee with a template.
 */
const seeded = { code: "", inviteeName: "", inviteeId: 0, campaignId: 0, template: "" };
const AUTHZ_TEMPLATE = `authz_${crypto.randomUUID().slice(0, 8)}`;

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

beforeAll(startCallerSessions);

/** The template the WhatsApp rows name, and the billing data the rows above read. */
beforeAll(async () => {
  await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', '[]')")
    .bind(`tpl-${AUTHZ_TEMPLATE}`, AUTHZ_TEMPLATE)
    .run();
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

describe("permissions that depend on the body", () => {
  describe.each(BODY_RULES)("$name ($method)", (rule) => {
    it.each(CALLERS)("answers %s callers as listed", async (caller) => {
      const path = typeof rule.path === "string" ? rule.path : rule.path();
      await expectAnswer(rule.method, path, rule.body(caller), caller, rule.expected[caller], rule.shows);
    });
  });
});
