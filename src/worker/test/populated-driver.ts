/** A driver with something of theirs in every table (account/account*.test.ts: what an erasure or an export must cover). */
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { recordConsent } from "../compliance/consent";
import {
  authChallenges,
  campaignExclusions,
  campaignMessages,
  campaigns,
  consentConfirmations,
  driverStationZones,
  invitations,
  leads,
  optOuts,
  outbox,
  payments,
  platformSignIns,
  rateLimits,
  referralCodes,
  resellers,
  serviceTimeLedger,
  users,
  verificationCodes,
} from "../db/schema";
import { connectedDriver, recordWonBlock } from "./connected-driver";
import { call, codeIn, createUser, db, json, lastOutboxId, nextSms, PASSWORD, type Tokens, tokenFor, uniquePhone, uniqueTag } from "./fixtures";

/**
 * A client address of its own (an IPv6 one: stored by its /64, whose four groups of four digits are
 * unique to it, so no other test's address contains it), and that /64 as the audit rows keep it.
 */
function clientOfItsOwn() {
  const group = () => (0x1000 + Math.floor(Math.random() * 0xf000)).toString(16);
  const prefix = `2001:db8:${group()}:${group()}:`;
  return { address: `${prefix}:7`, stored: prefix };
}

/** A driver with a row in every table that can hold something of theirs, signed in. */
export async function populatedDriver() {
  const tag = uniqueTag("zq");
  const name = `Quinn ${tag}`;
  const email = `${tag}@example.com`;
  const d = await connectedDriver({ offersRate: null, user: { name, email, humanRegion: `Region ${tag}`, password: PASSWORD } as never });
  const user = d.user;
  const phone = user.phone;
  // A reset and a sign-in, each audited with the client's address.
  const clients = [clientOfItsOwn(), clientOfItsOwn()] as const;
  const before = await lastOutboxId();
  expect((await call("/api/auth/forgot-password", { body: { phoneNumber: phone, app: user.app }, address: clients[0].address })).status).toBe(200);
  const code = codeIn((await nextSms(phone, before)).body);
  const reset = await call("/api/auth/reset-password", {
    body: { phoneNumber: phone, app: user.app, code, newPassword: NEW_PASSWORD },
    address: clients[0].address,
  });
  expect(reset.status).toBe(200);
  const signedIn = await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: user.app, password: NEW_PASSWORD }, address: clients[1].address });
  const tokens = (await json(signedIn)).tokens as Tokens;
  // The engine runs.
  expect((await call("/api/driver/engine", { token: tokens.idToken, body: { on: true } })).status).toBe(200);
  const now = Date.now();
  const admin = await createUser({ isAdmin: true, roleName: "owner", billingDetails: true });
  const friend = uniquePhone();
  await db.insert(invitations).values({ inviterId: user.id, app: "flex", phone: friend });
  await db.insert(invitations).values({ inviterId: admin.id, app: "flex", phone });
  await db.insert(verificationCodes).values({ app: "flex", phone, purpose: "confirm", codeHash: "x", expiresAt: now + 60_000 });
  await db.insert(authChallenges).values({ id: uniqueTag("ch"), userId: user.id, challenge: "SMS_MFA", expiresAt: now + 60_000, data: { phone } });
  // The reset above counted codeSendPerPhone:<phone>; one more window keyed by the number:
  await db.insert(rateLimits).values({ key: `contactPerPhone:${phone}`, count: 1, resetAt: now + 60_000 });
  await db
    .insert(platformSignIns)
    .values({ id: uniqueTag("ps"), userId: user.id, email: d.email, kind: "code", sealedSession: "sealed", expiresAt: now + 60_000 });
  // A zone the driver gave one of their stations themselves.
  const stationZone = { userId: user.id, app: "flex" as const, stationId: d.stations[0]!, timeZone: "America/Chicago" };
  await db.insert(driverStationZones).values(stationZone);
  await recordWonBlock(d, { platformOfferId: uniqueTag("o"), payCents: 9000, startsAt: now + 3_600_000, blockId: null, seenAt: now });
  const payment = await db
    .insert(payments)
    .values({ userId: user.id, payerId: user.id, amountCents: 4900, days: 7, status: "successful", provider: "local", settledAt: now })
    .returning()
    .get();
  await db.insert(serviceTimeLedger).values({
    userId: user.id,
    kind: "payment",
    deltaMs: 7 * 86_400_000,
    paymentId: payment.id,
    sourceKey: `payment:${payment.id}`,
    requestId: uniqueTag("r"),
  });
  await db.insert(leads).values({ app: "flex", phone, name, email, source: "contact", message: `Hello, I am ${name}` });
  await db.insert(leads).values({ app: "flex", phone, name, userId: user.id, source: "drop_off" });
  await recordConsent(db, { phone, basis: "express", source: "registration", text: REGISTRATION_CONSENT, language: "en", userId: user.id });
  await db.insert(consentConfirmations).values({ phone, consentEventId: 0, language: "en", sentAt: now });
  await db.insert(optOuts).values({ phone, channel: "sms", keyword: "STOP" });
  await db.update(users).set({ smsOptOut: true }).where(eq(users.id, user.id));
  const campaign = await db
    .insert(campaigns)
    .values({
      app: "flex",
      channel: "sms",
      source: "list",
      message: "Hi",
      audience: { source: "list", app: "flex", phones: [phone, friend] },
      authorId: admin.id,
      idempotencyKey: uniqueTag("k"),
    })
    .returning()
    .get();
  await db.insert(campaignMessages).values({ campaignId: campaign.id, userId: user.id, phone, name, status: "pending" });
  // A send the provider refused, in its own words (Twilio's quote the To number).
  const earlier = await db
    .insert(campaigns)
    .values({
      app: "flex",
      channel: "sms",
      source: "list",
      message: "Hi",
      audience: { source: "list", app: "flex", phones: [] },
      authorId: admin.id,
      idempotencyKey: uniqueTag("k"),
    })
    .returning()
    .get();
  await db.insert(campaignMessages).values({
    campaignId: earlier.id,
    userId: user.id,
    phone,
    name,
    status: "failed",
    providerId: uniqueTag("SM"),
    errorCode: "21211",
    errorMessage: `The 'To' number ${phone} is not a valid phone number.`,
  });
  await db.insert(campaignExclusions).values({ campaignId: campaign.id, phone });
  await db.insert(outbox).values({ channel: "sms", to: phone, body: `Hi ${name}`, providerId: uniqueTag("p") });
  // An administrator's edit: the audit row keeps the earlier name, email and region.
  const current = { name: `Rowan ${tag}`, email: `${tag}-now@example.com` };
  const edit = await call(`/api/admin/users/${user.id}`, {
    method: "PATCH",
    token: await tokenFor(admin, { isAdmin: true }),
    body: { ...current, region: `Area ${tag}` },
  });
  expect(edit.status).toBe(200);
  await db.insert(referralCodes).values({ code: tag.toUpperCase(), app: "flex", owner: name, ownerUserId: user.id });
  await db.insert(resellers).values({ userId: user.id, status: "applied", message: `${name} wants to resell`, commissionBps: 2000 });
  return {
    user,
    tokens,
    ...current,
    /** What the account was called before the administrator's edit, and where it signed in from. */
    earlier: [name, email, `Region ${tag}`],
    addresses: clients.map((c) => c.stored),
    phone,
    platformAccount: { customerId: d.customerId, accountName: d.accountName },
    stationZone,
    friend,
    campaignId: campaign.id,
    failedCampaignId: earlier.id,
    paymentId: payment.id,
    admin,
  };
}

/** The password populatedDriver's reset sets. */
export const NEW_PASSWORD = "Reset#2026!x";
