import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { APPS, LANGUAGES, MFA_METHODS } from "../../shared/auth";
import { NOTIFICATION_CHANNELS, NOTIFICATION_EVENTS } from "../../shared/notifications";
import type { TemplateRef } from "../../shared/templates";

// Conventions: timestamps are epoch milliseconds (UTC), money is integer cents,
// phone numbers are E.164. Booleans are stored as 0/1 integers.

const now = sql`(unixepoch('subsec') * 1000)`;

export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: APPS }).notNull(),
    phone: text("phone").notNull(),
    phoneVerified: integer("phone_verified", { mode: "boolean" }).notNull().default(false),
    name: text("name").notNull(),
    email: text("email"),
    passwordHash: text("password_hash"),
    language: text("language", { enum: LANGUAGES }).notNull().default("en"),
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
    roleName: text("role_name"),
    roleProperties: text("role_properties", { mode: "json" }).$type<{ billingDetails?: boolean }>(),
    expirationAt: integer("expiration_at"),
    goodStanding: integer("good_standing", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull().default(now),
    humanRegion: text("human_region"),
    deliveryArea: text("delivery_area"),
    accountConnected: integer("account_connected", { mode: "boolean" }).notNull().default(false),
    setupComplete: integer("setup_complete", { mode: "boolean" }).notNull().default(false),
    status: text("status", { enum: ["start", "stop"] })
      .notNull()
      .default("stop"),
    referralCode: text("referral_code"),
    inviteCode: text("invite_code").notNull(),
    /** The driver whose invite link (their invite code as `ref`) this account registered with. */
    invitedBy: integer("invited_by"),
    stripeCustomerId: text("stripe_customer_id"),
    stripeExpressId: text("stripe_express_id"),
    mfaSecret: text("mfa_secret"),
    /** How a second factor is asked at sign-in: none, an SMS code, or TOTP (required for admins). */
    mfaMethod: text("mfa_method", { enum: MFA_METHODS }).notNull().default("none"),
    lastSignInAt: integer("last_sign_in_at"),
    mustChangePassword: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
    smsOptOut: integer("sms_opt_out", { mode: "boolean" }).notNull().default(false),
    whatsappOptOut: integer("whatsapp_opt_out", { mode: "boolean" }).notNull().default(false),
    /**
     * What the review search matches (docs/product.md, validation): name, region (or delivery area) and referral code,
     * lower-cased with the accented capitals folded too, joined by U+001F. Kept by triggers
     * (migrations/0002_audience_search.sql), never written by code, so every writer gets it right.
     */
    searchKey: text("search_key"),
    /**
     * When the account was erased (src/worker/account/erase.ts): the row stays, emptied of personal
     * data, only so the payments and service time that name it keep their link.
     */
    erasedAt: integer("erased_at"),
  },
  (t) => [
    uniqueIndex("users_app_phone").on(t.app, t.phone),
    // The audience review (docs/architecture.md, budgets: ≤ 50 ms over 100,000 drivers). The wide index answers
    // the count and the default page for every yes/no, date, region, referral and search filter
    // without touching the table; the narrow ones serve the other sort orders and selective lists.
    index("users_audience").on(
      t.app,
      t.isAdmin,
      t.createdAt,
      t.id,
      t.goodStanding,
      t.expirationAt,
      t.accountConnected,
      t.setupComplete,
      t.humanRegion,
      t.deliveryArea,
      t.referralCode,
      t.searchKey,
    ),
    index("users_audience_name").on(t.app, t.isAdmin, sql`${t.name} COLLATE NOCASE`, t.id),
    index("users_audience_expiration").on(t.app, t.isAdmin, t.expirationAt, t.id),
    index("users_audience_region").on(t.app, t.isAdmin, t.humanRegion, t.id),
    index("users_audience_area").on(t.app, t.isAdmin, t.deliveryArea, t.id),
    index("users_audience_referral").on(t.app, t.isAdmin, t.referralCode, t.id),
    index("users_audience_status").on(t.app, t.isAdmin, t.status, t.id),
    uniqueIndex("users_invite_code").on(t.inviteCode),
    index("users_app_created").on(t.app, t.createdAt),
    index("users_app_expiration").on(t.app, t.expirationAt),
    index("users_app_referral").on(t.app, t.referralCode),
    index("users_app_region").on(t.app, t.humanRegion),
    index("users_app_area").on(t.app, t.deliveryArea),
    index("users_phone").on(t.phone),
    // The dashboard's "disconnected" figure (docs/admin.md): confirmed drivers without a connected account.
    index("users_connection").on(t.isAdmin, t.accountConnected, t.phoneVerified, t.expirationAt),
  ],
);

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    family: text("family").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull().default(now),
    revokedAt: integer("revoked_at"),
    replacedBy: text("replaced_by"),
    /** The session's absolute end (sign-in + 90 days), copied along rotations; null on rows from before it existed. */
    sessionExpiresAt: integer("session_expires_at"),
  },
  (t) => [index("refresh_tokens_family").on(t.family), index("refresh_tokens_user").on(t.userId)],
);

export const verificationCodes = sqliteTable(
  "verification_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: APPS }).notNull(),
    phone: text("phone").notNull(),
    purpose: text("purpose", { enum: ["confirm", "reset", "sign-in", "mfa", "delete-account"] }).notNull(),
    codeHash: text("code_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    consumedAt: integer("consumed_at"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("verification_codes_lookup").on(t.app, t.phone, t.purpose, t.createdAt)],
);

/**
 * Pending sign-in challenges (the `session` handed back with a challenge). A row without a user is
 * the stand-in an SMS sign-in for an unknown phone gets (its app and phone in `data`), so that
 * sign-in answers and behaves exactly as for a known phone.
 */
export const authChallenges = sqliteTable(
  "auth_challenges",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    challenge: text("challenge").notNull(),
    expiresAt: integer("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [index("auth_challenges_user").on(t.userId)],
);

/** Fixed-window counters for rate limits (sign-in, codes, resets). */
export const rateLimits = sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  resetAt: integer("reset_at").notNull(),
});

/**
 * The platform's stations (Flex) and delivery areas (Spark) drivers have seen, by the platform's
 * id: what offers and filters name. Shared by every driver: `name` is the platform's, and
 * `city` / `timeZone` what the catalogue knows (src/worker/platform/station-catalogue.ts: Flex's
 * from the station table by the code in the name, Spark's modelled API gives them); null when
 * unknown. A driver's own correction of a zone lives in driver_station_zones, never here.
 */
export const stations = sqliteTable(
  "stations",
  {
    app: text("app", { enum: APPS }).notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    city: text("city"),
    timeZone: text("time_zone"),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.app, t.id] })],
);

/** A driver's own zone for a station (the catalogue's was missing or wrong): theirs alone. */
export const driverStationZones = sqliteTable(
  "driver_station_zones",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    app: text("app", { enum: APPS }).notNull(),
    stationId: text("station_id").notNull(),
    timeZone: text("time_zone").notNull(),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.userId, t.app, t.stationId] })],
);

/**
 * A driver's connection to the delivery platform (proxyInstalled in docs/product.md is users.account_connected).
 * Tokens are sealed (auth/secret-box.ts) and never leave the Worker; the password is never stored.
 */
export const platformAccounts = sqliteTable("platform_accounts", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  app: text("app", { enum: APPS }).notNull(),
  /**
   * Who the platform says the account is: Flex's registration gives the customer id and name (no
   * email); Spark's modelled sign-in names it by its email.
   */
  customerId: text("customer_id").notNull(),
  accountName: text("account_name").notNull(),
  /** JSON { accessToken, refreshToken, accessExpiresAt, device: { serial, instanceId } }, sealed; null once disconnected. */
  sealedTokens: text("sealed_tokens"),
  connectedAt: integer("connected_at").notNull(),
  disconnectedAt: integer("disconnected_at"),
  /** Why the connection ended: the driver disconnected, or the platform refused the refresh token. */
  disconnectReason: text("disconnect_reason", { enum: ["driver", "refused"] }),
  /**
   * The stations this account is eligible for (ids in `stations`), as the platform last listed
   * them, and when: the stations list is answered from here for STATIONS_CACHE_MS
   * (routes/driver.ts), so opening the settings does not reach the platform each time. Cleared
   * when an account is connected (another account may see other stations).
   */
  stationIds: text("station_ids", { mode: "json" }).$type<string[]>(),
  stationsFetchedAt: integer("stations_fetched_at"),
  updatedAt: integer("updated_at").notNull().default(now),
});

/**
 * A platform sign-in under way. Flex ("handoff"): the driver signs in on the platform's page;
 * `sealedSession` holds this attempt's PKCE verifier and device serial, `signInUrl` the page's
 * address. Spark ("code", "approval"): the modelled sign-in's challenge, its session sealed.
 */
export const platformSignIns = sqliteTable(
  "platform_sign_ins",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email"),
    kind: text("kind", { enum: ["handoff", "code", "approval"] }).notNull(),
    sealedSession: text("sealed_session").notNull(),
    signInUrl: text("sign_in_url"),
    destination: text("destination"),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("platform_sign_ins_user").on(t.userId)],
);

/** A driver's filters: the CaptureFilters of src/shared/offer-filter.ts, plus an optional daily cap. */
export const driverFilters = sqliteTable("driver_filters", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  stations: text("stations", { mode: "json" }).$type<{ id: string; minPayCents?: number | null; minHourlyCents?: number | null }[]>().notNull(),
  minPayCents: integer("min_pay_cents").notNull().default(0),
  minHourlyCents: integer("min_hourly_cents").notNull().default(0),
  arrivalBufferMinutes: integer("arrival_buffer_minutes").notNull().default(30),
  minDurationMinutes: integer("min_duration_minutes").notNull().default(0),
  maxDurationMinutes: integer("max_duration_minutes").notNull().default(0),
  /** Per weekday ("mon"…"sun") windows of station-local "HH:MM" times. */
  schedule: text("schedule", { mode: "json" })
    .$type<Partial<Record<"mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun", { start: string; end: string }[]>>>()
    .notNull(),
  /** At most this many minutes of blocks per station-local day; 0 = no cap. */
  dailyCapMinutes: integer("daily_cap_minutes").notNull().default(0),
  updatedAt: integer("updated_at").notNull().default(now),
});

/**
 * Won blocks: each driver's capture engine copies its won offers here from the driver's own offer
 * history (src/worker/platform/offer-history.ts), for what reads across drivers: the admin's
 * figures and the reseller's clients. Every offer shown (won, disliked with the reasons, or gone)
 * lives in the history; this table holds won blocks only.
 */
export const offers = sqliteTable(
  "offers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    app: text("app", { enum: APPS }).notNull(),
    platformOfferId: text("platform_offer_id").notNull(),
    stationId: text("station_id").notNull(),
    stationName: text("station_name").notNull(),
    timeZone: text("time_zone").notNull(),
    payCents: integer("pay_cents").notNull(),
    startsAt: integer("starts_at").notNull(),
    endsAt: integer("ends_at").notNull(),
    /** The platform's scheduled block. */
    blockId: text("block_id"),
    forfeitedAt: integer("forfeited_at"),
    arrivedAt: integer("arrived_at"),
    seenAt: integer("seen_at").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("offers_user_offer").on(t.userId, t.platformOfferId),
    // A reseller's clients' blocks this week.
    index("offers_user_start").on(t.userId, t.startsAt),
    // Blocks won per day on the admin dashboard, and retention.
    index("offers_created").on(t.createdAt),
  ],
);

export const plans = sqliteTable(
  "plans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: APPS }).notNull(),
    name: text("name").notNull(),
    days: integer("days").notNull(),
    priceCents: integer("price_cents").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** Where the plan is listed among its app's plans (ascending). */
    sortOrder: integer("sort_order").notNull().default(0),
    updatedAt: integer("updated_at"),
  },
  (t) => [index("plans_app_order").on(t.app, t.active, t.sortOrder)],
);

/**
 * One checkout of a plan. The row exists before the provider's checkout session; provider events
 * settle it: processing → successful | failed; successful → refunded (refundedCents says how much).
 * A dispute (chargeback) keeps the status and records itself in the dispute columns.
 * `userId` gets the days; `payerId` clicked Pay (the driver, or their reseller).
 */
export const payments = sqliteTable(
  "payments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    payerId: integer("payer_id"),
    planId: integer("plan_id").references(() => plans.id),
    amountCents: integer("amount_cents").notNull(),
    days: integer("days").notNull(),
    status: text("status", { enum: ["processing", "successful", "failed", "refunded"] }).notNull(),
    /** "stripe" or "local": which provider holds the checkout session. */
    provider: text("provider").notNull().default("stripe"),
    /** The provider's checkout session id (cs_…). */
    providerRef: text("provider_ref"),
    paymentIntentId: text("payment_intent_id"),
    refundedCents: integer("refunded_cents").notNull().default(0),
    /** The provider's dispute of the charge (dp_…), if the cardholder disputed it; one per charge. */
    disputeId: text("dispute_id"),
    /** open: the money is held by the card network (the days are taken back); won: it came back (and the days); lost: it is gone. */
    disputeStatus: text("dispute_status", { enum: ["open", "won", "lost"] }),
    /** What the dispute took back (its amount, at most what was not refunded). */
    disputedCents: integer("disputed_cents").notNull().default(0),
    /** The provider's last decline or failure code (card_declined, insufficient_funds, expired …). */
    failureCode: text("failure_code"),
    idempotencyKey: text("idempotency_key"),
    settledAt: integer("settled_at"),
    /**
     * When the same driver's previous payment settled (null for their first). Kept by triggers
     * (migrations/0011_payer_chain.sql), never by code: it lets the admin dashboard count the
     * drivers who paid in a range without a DISTINCT — a payment whose previous one settled before
     * the range is its driver's first in the range (docs/admin.md).
     */
    prevSettledAt: integer("prev_settled_at"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at"),
  },
  (t) => [
    index("payments_user").on(t.userId, t.createdAt),
    index("payments_created").on(t.createdAt),
    index("payments_status").on(t.status, t.createdAt),
    uniqueIndex("payments_provider_ref").on(t.providerRef),
    index("payments_intent").on(t.paymentIntentId),
    uniqueIndex("payments_payer_key").on(t.payerId, t.idempotencyKey),
    // The admin dashboard's payers and revenue per day, read from the index alone.
    index("payments_settled").on(t.status, t.settledAt, t.prevSettledAt, t.amountCents, t.refundedCents),
    // The payer chain's triggers find a driver's neighbouring settlements.
    index("payments_user_settled").on(t.userId, t.settledAt),
  ],
);

/**
 * Every change to a driver's service time (docs/payments.md): a payment, a refund, a dispute and
 * its outcome, a free week and its reversal, or an administrator's adjustment. `sourceKey` makes
 * each cause count once (payment:12, refund:12:500, dispute:dp_…, dispute_won:dp_…,
 * free_week:invitee:34, free_week_reversed:invitee:34, adjustment:<uuid>); `requestId` tells the
 * writer whether its insert won.
 */
export const serviceTimeLedger = sqliteTable(
  "service_time_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["payment", "refund", "dispute", "dispute_won", "free_week", "free_week_reversed", "adjustment"] }).notNull(),
    /** Milliseconds added (negative: removed) as applied, after clamping. */
    deltaMs: integer("delta_ms").notNull(),
    expirationBefore: integer("expiration_before"),
    expirationAfter: integer("expiration_after"),
    paymentId: integer("payment_id").references(() => payments.id, { onDelete: "set null" }),
    invitationId: integer("invitation_id"),
    /** Who made the change: null for the system (payments, refunds, free weeks). */
    actorId: integer("actor_id").references(() => users.id, { onDelete: "set null" }),
    reason: text("reason"),
    sourceKey: text("source_key").notNull(),
    requestId: text("request_id").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("service_time_source").on(t.sourceKey),
    index("service_time_user").on(t.userId, t.createdAt),
    index("service_time_request").on(t.requestId),
    index("service_time_payment").on(t.paymentId),
  ],
);

/** Stripe event ids seen by the webhook: each is processed once (a crashed attempt is taken over later). */
export const stripeEvents = sqliteTable(
  "stripe_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    status: text("status", { enum: ["processing", "processed", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(1),
    claimedAt: integer("claimed_at").notNull(),
    processedAt: integer("processed_at"),
    error: text("error"),
  },
  (t) => [index("stripe_events_claimed").on(t.claimedAt)],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    inviterId: integer("inviter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    app: text("app", { enum: APPS }).notNull(),
    phone: text("phone").notNull(),
    invitedAt: integer("invited_at").notNull().default(now),
    freeWeek: integer("free_week", { mode: "boolean" }).notNull().default(false),
    /** "sms": invited from /flex/invite; "link": the friend registered with the inviter's link uninvited. */
    via: text("via", { enum: ["sms", "link"] })
      .notNull()
      .default("sms"),
    /** The friend's account, set when the free week is granted. */
    inviteeId: integer("invitee_id"),
    freeWeekAt: integer("free_week_at"),
    /** The friend's payment that earned the free week: refunded in full or disputed, it takes the week back. */
    freeWeekPaymentId: integer("free_week_payment_id"),
  },
  (t) => [
    index("invitations_inviter").on(t.inviterId, t.invitedAt),
    uniqueIndex("invitations_inviter_phone").on(t.inviterId, t.phone),
    index("invitations_phone").on(t.phone),
    index("invitations_invited_at").on(t.app, t.invitedAt),
  ],
);

export const referralCodes = sqliteTable(
  "referral_codes",
  {
    code: text("code").primaryKey(),
    app: text("app", { enum: APPS }).notNull(),
    owner: text("owner").notNull(),
    /** The reseller who owns the code (null for partner codes that belong to no account). */
    ownerUserId: integer("owner_user_id"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("referral_codes_owner").on(t.ownerUserId)],
);

/**
 * The reseller program: a driver applies, an administrator approves (giving a referral code and a
 * commission rate), the reseller onboards a Connect Express account (users.stripe_express_id).
 */
export const resellers = sqliteTable(
  "resellers",
  {
    userId: integer("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["applied", "approved", "rejected", "revoked"] }).notNull(),
    message: text("message"),
    /** Commission in basis points of each client payment (2000 = 20 %). */
    commissionBps: integer("commission_bps").notNull(),
    referralCode: text("referral_code").references(() => referralCodes.code),
    detailsSubmitted: integer("details_submitted", { mode: "boolean" }).notNull().default(false),
    payoutsEnabled: integer("payouts_enabled", { mode: "boolean" }).notNull().default(false),
    appliedAt: integer("applied_at").notNull().default(now),
    decidedAt: integer("decided_at"),
    decidedBy: integer("decided_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("resellers_status").on(t.status, t.appliedAt), uniqueIndex("resellers_referral_code").on(t.referralCode)],
);

/**
 * A reseller's share of one client payment. The provider side follows the amounts: the owed amount
 * (amountCents − reversalDueCents) is transferred to the reseller's Express account once, and a
 * refund reverses its share of what was transferred.
 */
export const commissions = sqliteTable(
  "commissions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    paymentId: integer("payment_id")
      .notNull()
      .references(() => payments.id, { onDelete: "cascade" }),
    resellerId: integer("reseller_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: integer("client_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    commissionBps: integer("commission_bps").notNull(),
    /** pending (not transferred yet), paid (transferred), reversed (nothing owed any more, all of it reversed or never sent). */
    status: text("status", { enum: ["pending", "paid", "reversed"] }).notNull(),
    reversalDueCents: integer("reversal_due_cents").notNull().default(0),
    transferId: text("transfer_id"),
    transferredCents: integer("transferred_cents").notNull().default(0),
    reversedCents: integer("reversed_cents").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** A settle in progress holds the row until this instant (a crashed one is taken over after it). */
    leaseUntil: integer("lease_until").notNull().default(0),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("commissions_payment").on(t.paymentId),
    index("commissions_reseller").on(t.resellerId, t.createdAt),
    index("commissions_status").on(t.status, t.updatedAt),
  ],
);

/**
 * The embedded payments provider's objects (PAYMENTS_PROVIDER = "local"): checkout sessions,
 * Express accounts, account links, refunds and transfers, in Stripe's shapes, so the local
 * checkout and onboarding pages can act like Stripe's.
 */
export const localStripeObjects = sqliteTable(
  "local_stripe_objects",
  {
    id: text("id").primaryKey(),
    object: text("object").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("local_stripe_objects_object").on(t.object, t.createdAt)],
);

/**
 * People to follow up (docs/admin.md, leads): contact-form messages (no user_id), and drivers who
 * dropped off on the way to paying (user_id set; filed by the cron, their stage read live from the
 * user). Admins keep status, owner and notes on each.
 */
export const leads = sqliteTable(
  "leads",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: APPS }).notNull(),
    phone: text("phone").notNull(),
    name: text("name"),
    email: text("email"),
    source: text("source").notNull(),
    /** What a contact-form lead wrote; null for leads from other sources. */
    message: text("message"),
    language: text("language", { enum: ["en", "es"] }),
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["new", "contacted", "converted", "lost"] })
      .notNull()
      .default("new"),
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "set null" }),
    notes: text("notes"),
    createdAt: integer("created_at").notNull().default(now),
    /** The last change an admin made (status, owner, notes). */
    updatedAt: integer("updated_at"),
  },
  (t) => [index("leads_created").on(t.app, t.createdAt), index("leads_status").on(t.status, t.createdAt), uniqueIndex("leads_user").on(t.userId)],
);

export const campaigns = sqliteTable(
  "campaigns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: APPS }).notNull(),
    channel: text("channel", { enum: ["sms", "whatsapp"] }).notNull(),
    /** drivers (panel 1), invitations (panel 2), list (tools: typed phone list), retry (failed rows of another campaign) */
    source: text("source", { enum: ["drivers", "invitations", "list", "retry"] }).notNull(),
    message: text("message"),
    template: text("template", { mode: "json" }).$type<TemplateRef>(),
    audience: text("audience", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id),
    idempotencyKey: text("idempotency_key").notNull(),
    /** scheduled: waits for scheduled_at (cancellable); cancelled: stopped before it started. */
    status: text("status", { enum: ["scheduled", "queued", "expanding", "sending", "done", "failed", "cancelled"] })
      .notNull()
      .default("queued"),
    /** Asked at creation (docs/messaging-rules.md): marketing needs consent and keeps quiet hours; transactional does not. */
    category: text("category", { enum: ["marketing", "transactional"] })
      .notNull()
      .default("marketing"),
    purpose: text("purpose", { enum: ["marketing", "service", "payment", "code"] })
      .notNull()
      .default("marketing"),
    /** The message's language: the marketing opt-out line is written in it. */
    language: text("language", { enum: ["en", "es"] })
      .notNull()
      .default("en"),
    scheduledAt: integer("scheduled_at"),
    total: integer("total").notNull().default(0),
    skipped: integer("skipped").notNull().default(0),
    /** SHA-256 of the create request: a replayed idempotency key with a different request is refused. */
    requestHash: text("request_hash"),
    /** Expansion progress: dispatch jobs are enqueued for message ids up to this one (a retried expand resumes here). */
    dispatchCursor: integer("dispatch_cursor").notNull().default(0),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("campaigns_idempotency").on(t.authorId, t.idempotencyKey),
    index("campaigns_created").on(t.createdAt),
    index("campaigns_status").on(t.status, t.updatedAt),
  ],
);

/** Rows the admin deselected in the review step; removed at expansion. */
export const campaignExclusions = sqliteTable(
  "campaign_exclusions",
  {
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    phone: text("phone").notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.phone] })],
);

export const campaignMessages = sqliteTable(
  "campaign_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    userId: integer("user_id"),
    phone: text("phone").notNull(),
    name: text("name"),
    /** deferred: a marketing message waiting for the recipient's allowed hours (deferred_until). */
    status: text("status", { enum: ["pending", "deferred", "sending", "sent", "delivered", "failed", "skipped"] })
      .notNull()
      .default("pending"),
    deferredUntil: integer("deferred_until"),
    providerId: text("provider_id"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    attempts: integer("attempts").notNull().default(0),
    deadLettered: integer("dead_lettered", { mode: "boolean" }).notNull().default(false),
    updatedAt: integer("updated_at").notNull().default(now),
    /**
     * A send whose answer never came (a time-out after the provider may have accepted it) waits in
     * 'sending' until then for its status callback, which names this row; only after it is the row
     * sent again (docs/security.md, "Ambiguous sends").
     */
    heldUntil: integer("held_until"),
    /**
     * When the row was first claimed for sending. Before a held row is sent again, the provider is
     * asked whether it has the message (created since then, less a clock allowance).
     */
    firstClaimedAt: integer("first_claimed_at"),
    /**
     * When the cron sweep last queued this row's dispatch job again (a pending row whose job was
     * lost, or a row in doubt); it does so at most once per REQUEUE_AFTER_SECONDS.
     */
    requeuedAt: integer("requeued_at"),
    /** The "retry failed" campaign that took this failed row: each failed row is retried once. */
    retriedBy: integer("retried_by"),
  },
  (t) => [
    uniqueIndex("campaign_messages_campaign_phone").on(t.campaignId, t.phone),
    index("campaign_messages_retried").on(t.campaignId, t.status, t.retriedBy),
    index("campaign_messages_status").on(t.campaignId, t.status),
    index("campaign_messages_provider").on(t.providerId),
    // The cron sweep finds rows left in 'sending' by a crashed consumer across all campaigns.
    index("campaign_messages_lease").on(t.status, t.updatedAt),
    // The frequency cap counts a number's recent marketing messages.
    index("campaign_messages_phone").on(t.phone, t.updatedAt),
    // The messages a user received, on the admin's user page.
    index("campaign_messages_user").on(t.userId, t.id),
  ],
);

/**
 * A delivery receipt that arrived before its send was recorded (the provider can call back within
 * milliseconds, while the consumer is still writing the provider id). The consumer applies it when
 * it records the send; the sweep drops receipts nobody claimed after a day (e.g. HELP replies).
 */
export const deliveryReceipts = sqliteTable(
  "delivery_receipts",
  {
    providerId: text("provider_id").primaryKey(),
    status: text("status", { enum: ["delivered", "failed"] }).notNull(),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    receivedAt: integer("received_at").notNull().default(now),
  },
  (t) => [index("delivery_receipts_received").on(t.receivedAt)],
);

export const whatsappTemplates = sqliteTable("whatsapp_templates", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  language: text("language").notNull(),
  status: text("status").notNull().default("APPROVED"),
  /** Meta's category: MARKETING, UTILITY or AUTHENTICATION (marketing templates are marketing campaigns). */
  category: text("category").notNull().default("MARKETING"),
  components: text("components", { mode: "json" }).$type<{ type: string; text?: string; format?: string }[]>().notNull(),
  syncedAt: integer("synced_at").notNull().default(now),
});

export const optOuts = sqliteTable(
  "opt_outs",
  {
    phone: text("phone").notNull(),
    channel: text("channel", { enum: ["sms", "whatsapp"] }).notNull(),
    keyword: text("keyword").notNull(),
    at: integer("at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.phone, t.channel] })],
);

/**
 * Opt-outs of erased accounts, by a keyed hash of the number (src/worker/compliance/erased-opt-outs.ts)
 * instead of the number: an erased person who had replied STOP stays opted out. When the number
 * comes back (it registers, or a campaign reaches it), the opt-out moves back into opt_outs.
 */
export const optOutHashes = sqliteTable(
  "opt_out_hashes",
  {
    hash: text("hash").notNull(),
    channel: text("channel", { enum: ["sms", "whatsapp"] }).notNull(),
    at: integer("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.hash, t.channel] })],
);

/** What the embedded providers (SMS, WhatsApp) "sent": the local stand-in for a real provider. */
export const outbox = sqliteTable(
  "outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    channel: text("channel", { enum: ["sms", "whatsapp"] }).notNull(),
    to: text("to").notNull(),
    body: text("body").notNull(),
    providerId: text("provider_id").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("outbox_to").on(t.to, t.createdAt), uniqueIndex("outbox_provider_id").on(t.providerId)],
);

/**
 * The admin dashboard's figures for days already over (docs/admin.md): computed once, kept for a few
 * minutes, so the dashboard's usual ranges answer from one row while today is always counted live.
 */
export const dashboardCache = sqliteTable(
  "dashboard_cache",
  {
    key: text("key").primaryKey(),
    value: text("value", { mode: "json" }).$type<unknown>().notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("dashboard_cache_expires").on(t.expiresAt)],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    actorId: integer("actor_id"),
    action: text("action").notNull(),
    target: text("target"),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    at: integer("at").notNull().default(now),
  },
  // The audit page filters by actor, action or target, newest first.
  (t) => [
    index("audit_log_at").on(t.at),
    index("audit_log_actor").on(t.actorId, t.at),
    index("audit_log_action").on(t.action, t.at),
    index("audit_log_target").on(t.target, t.at),
  ],
);

/**
 * The consent ledger (docs/messaging-rules.md): every way a number agreed to messages, opted out
 * or opted back in, with the exact words and when. Append-only; opt_outs and the users' flags
 * are the current state that sending reads, written in the same transaction as the ledger row.
 */
export const consentEvents = sqliteTable(
  "consent_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    phone: text("phone").notNull(),
    kind: text("kind", { enum: ["consent", "opt_out", "opt_in"] }).notNull(),
    /** The channel it applies to; 'all' for consent given to both, and for opt-outs honoured across channels. */
    channel: text("channel", { enum: ["sms", "whatsapp", "all"] }).notNull(),
    /**
     * For consent: 'express' (the person agreed, in writing, and the number confirmed it) allows marketing;
     * 'unconfirmed' (a box ticked for a number nobody has proven yet) and 'invitation' (a friend gave the
     * number) do not. Confirming appends an 'express' row; the 'unconfirmed' one stays as the record of the tick.
     */
    basis: text("basis", { enum: ["express", "unconfirmed", "invitation"] }),
    source: text("source", { enum: ["registration", "contact_form", "invitation", "inbound_sms", "inbound_whatsapp", "admin"] }).notNull(),
    /** The consent text shown, or the inbound message that opted out or in. */
    text: text("text"),
    textVersion: text("text_version"),
    language: text("language", { enum: ["en", "es"] }),
    userId: integer("user_id"),
    actorId: integer("actor_id"),
    /** The provider's id of the inbound message: a replayed webhook records nothing twice. */
    messageId: text("message_id"),
    at: integer("at").notNull().default(now),
  },
  (t) => [
    index("consent_events_phone").on(t.phone, t.kind, t.basis),
    index("consent_events_phone_at").on(t.phone, t.at),
    uniqueIndex("consent_events_message").on(t.messageId, t.channel),
  ],
);

/**
 * How many accounts there are of each kind (docs/admin.md, dashboard): the figures' "drivers",
 * "system on" and "disconnected" are sums of these few rows instead of counts over every account.
 * Kept by triggers on users (migrations/0015_user_tallies_triggers.sql), so every writer keeps
 * them right.
 */
export const userTallies = sqliteTable(
  "user_tallies",
  {
    app: text("app", { enum: APPS }).notNull(),
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull(),
    status: text("status", { enum: ["start", "stop"] }).notNull(),
    accountConnected: integer("account_connected", { mode: "boolean" }).notNull(),
    phoneVerified: integer("phone_verified", { mode: "boolean" }).notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.app, t.isAdmin, t.status, t.accountConnected, t.phoneVerified] })],
);

/**
 * What a registrant typed that gives someone else a claim on the account (a reseller's referral
 * code, the inviter of an invite link), held until the phone is proven by whoever chose the
 * registration password (docs/security.md, "Proving a phone ends what came before"): confirm with
 * that password applies it (and writes the link invitation); any other proof of the phone drops it,
 * with the name, email and marketing tick typed at registration. One row per unconfirmed registration.
 */
export const pendingSignups = sqliteTable("pending_signups", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  referralCode: text("referral_code"),
  invitedBy: integer("invited_by"),
  createdAt: integer("created_at").notNull().default(now),
});

/**
 * The one text asking a number to confirm a marketing tick nobody proved (the contact form's box):
 * one row per number, sent at most once per CONSENT_CONFIRMATION_RESEND_MS; a YES reply within
 * CONSENT_CONFIRMATION_REPLY_MS confirms the tick it names (src/worker/compliance/consent.ts).
 */
export const consentConfirmations = sqliteTable("consent_confirmations", {
  phone: text("phone").primaryKey(),
  /** The 'unconfirmed' consent row the text asks about. */
  consentEventId: integer("consent_event_id").notNull(),
  language: text("language", { enum: ["en", "es"] }).notNull(),
  sentAt: integer("sent_at").notNull(),
  confirmedAt: integer("confirmed_at"),
});

/**
 * The devices a driver gets pushes on (Web Push, docs/notifications.md): one row per browser
 * subscription, at most MAX_PUSH_SUBSCRIPTIONS per driver. Removed when the push service answers
 * 404 or 410, when the device signs out, and with the account.
 */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    /** The browser's P-256 public key and auth secret, base64url, as PushSubscription.toJSON() gives them. */
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("push_subscriptions_endpoint").on(t.endpoint), index("push_subscriptions_user").on(t.userId, t.createdAt)],
);

/** A driver's own choice of channel per event (src/shared/notifications.ts); no row: the default. */
export const notificationChannels = sqliteTable(
  "notification_channels",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    event: text("event", { enum: NOTIFICATION_EVENTS }).notNull(),
    channel: text("channel", { enum: NOTIFICATION_CHANNELS }).notNull(),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.userId, t.event] })],
);

/**
 * Every notification accepted for a driver, one row per channel (push to one device, or an SMS),
 * from queued to its end: sent, failed (with why), or skipped (opted out, no device left). `key`
 * makes an event once per channel and device (a block won is notified once however often its
 * decision is replayed); the queue's `notify` job moves the row (docs/notifications.md).
 */
export const driverNotifications = sqliteTable(
  "driver_notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    event: text("event", { enum: NOTIFICATION_EVENTS }).notNull(),
    channel: text("channel", { enum: ["push", "sms"] }).notNull(),
    /** The device, for a push; null for an SMS. A removed device leaves its rows (they end as skipped or failed). */
    subscriptionId: integer("subscription_id"),
    key: text("key").notNull(),
    /** A push: the PushPayload as JSON; an SMS: its text. */
    body: text("body").notNull(),
    status: text("status", { enum: ["queued", "sending", "sent", "failed", "skipped"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    /** A claimed send's lease: another delivery of the job may take it over only after this. */
    leaseUntil: integer("lease_until"),
    error: text("error"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("driver_notifications_key").on(t.key),
    index("driver_notifications_user").on(t.userId, t.createdAt),
    // The sweep of stalled sends and retention.
    index("driver_notifications_status").on(t.status, t.updatedAt),
  ],
);
