/**
 * Who may call what in the console: the administrators' routes of the authorization table
 * (test/authz-table.ts), and actions whose target is an administrator's account.
 */
import { beforeAll, describe, it } from "vitest";
import { ADMIN_ROUTES, answersAsListed, billingOwner, CALLERS, type Expected, expectAnswer, ownerOnly, startCallerSessions } from "./test/authz-table";
import { seedAdmin, seedUser } from "./test/fixtures";

beforeAll(startCallerSessions);

describe("authorization table", () => {
  answersAsListed(ADMIN_ROUTES);
});

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
