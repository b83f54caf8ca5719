import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Conventions: timestamps are epoch milliseconds (UTC), money is integer cents,
// phone numbers are E.164. Booleans are stored as 0/1 integers.

const now = sql`(unixepoch('subsec') * 1000)`;

export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: ["flex", "spark"] }).notNull(),
    phone: text("phone").notNull(),
    phoneVerified: integer("phone_verified", { mode: "boolean" }).notNull().default(false),
    name: text("name").notNull(),
    email: text("email"),
    passwordHash: text("password_hash"),
    language: text("language", { enum: ["en", "es"] })
      .notNull()
      .default("en"),
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
    stripeCustomerId: text("stripe_customer_id"),
    stripeExpressId: text("stripe_express_id"),
    mfaSecret: text("mfa_secret"),
    /** How a second factor is asked at sign-in: none, an SMS code, or TOTP (required for admins). */
    mfaMethod: text("mfa_method", { enum: ["none", "sms", "totp"] })
      .notNull()
      .default("none"),
    lastSignInAt: integer("last_sign_in_at"),
    mustChangePassword: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
    smsOptOut: integer("sms_opt_out", { mode: "boolean" }).notNull().default(false),
    whatsappOptOut: integer("whatsapp_opt_out", { mode: "boolean" }).notNull().default(false),
    /**
     * What the review search matches (spec §5): name, region (or delivery area) and referral code,
     * lower-cased with the accented capitals folded too, joined by U+001F. Kept by triggers
     * (migrations/0002_audience_search.sql), never written by code, so every writer gets it right.
     */
    searchKey: text("search_key"),
  },
  (t) => [
    uniqueIndex("users_app_phone").on(t.app, t.phone),
    // The audience review (DESIGN §6.1, §10: ≤ 50 ms over 100,000 drivers). The wide index answers
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
    app: text("app", { enum: ["flex", "spark"] }).notNull(),
    phone: text("phone").notNull(),
    purpose: text("purpose", { enum: ["confirm", "reset", "sign-in", "mfa"] }).notNull(),
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

export const stations = sqliteTable(
  "stations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: ["flex", "spark"] }).notNull(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    region: text("region").notNull(),
  },
  (t) => [uniqueIndex("stations_app_code").on(t.app, t.code), index("stations_region").on(t.app, t.region)],
);

export const driverFilters = sqliteTable("driver_filters", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  stationIds: text("station_ids", { mode: "json" }).$type<number[]>().notNull(),
  minHourlyCents: integer("min_hourly_cents").notNull().default(0),
  minBlockPayCents: integer("min_block_pay_cents").notNull().default(0),
  arrivalBufferMinutes: integer("arrival_buffer_minutes").notNull().default(30),
  /** Per weekday (0 = Sunday) a list of [startMinute, endMinute) windows. */
  schedule: text("schedule", { mode: "json" }).$type<Record<string, [number, number][]>>().notNull(),
  minBlockMinutes: integer("min_block_minutes").notNull().default(0),
  maxBlockMinutes: integer("max_block_minutes").notNull().default(600),
  updatedAt: integer("updated_at").notNull().default(now),
});

export const offers = sqliteTable(
  "offers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    stationId: integer("station_id").references(() => stations.id),
    status: text("status", { enum: ["won", "disliked", "gone"] }).notNull(),
    reason: text("reason"),
    payCents: integer("pay_cents").notNull(),
    startsAt: integer("starts_at").notNull(),
    endsAt: integer("ends_at").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("offers_user_created").on(t.userId, t.createdAt)],
);

export const plans = sqliteTable("plans", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  app: text("app", { enum: ["flex", "spark"] }).notNull(),
  name: text("name").notNull(),
  days: integer("days").notNull(),
  priceCents: integer("price_cents").notNull(),
  active: integer("active", { mode: "boolean" }).notNull().default(true),
});

export const payments = sqliteTable(
  "payments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    planId: integer("plan_id").references(() => plans.id),
    amountCents: integer("amount_cents").notNull(),
    days: integer("days").notNull(),
    status: text("status", { enum: ["processing", "successful", "failed", "refunded"] }).notNull(),
    providerRef: text("provider_ref"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("payments_user").on(t.userId, t.createdAt), index("payments_created").on(t.createdAt), uniqueIndex("payments_provider_ref").on(t.providerRef)],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    inviterId: integer("inviter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    app: text("app", { enum: ["flex", "spark"] }).notNull(),
    phone: text("phone").notNull(),
    invitedAt: integer("invited_at").notNull().default(now),
    freeWeek: integer("free_week", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    uniqueIndex("invitations_inviter_phone").on(t.inviterId, t.phone),
    index("invitations_phone").on(t.phone),
    index("invitations_invited_at").on(t.app, t.invitedAt),
  ],
);

export const referralCodes = sqliteTable("referral_codes", {
  code: text("code").primaryKey(),
  app: text("app", { enum: ["flex", "spark"] }).notNull(),
  owner: text("owner").notNull(),
  createdAt: integer("created_at").notNull().default(now),
});

export const leads = sqliteTable(
  "leads",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: ["flex", "spark"] }).notNull(),
    phone: text("phone").notNull(),
    name: text("name"),
    email: text("email"),
    source: text("source").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("leads_created").on(t.app, t.createdAt)],
);

export const campaigns = sqliteTable(
  "campaigns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    app: text("app", { enum: ["flex", "spark"] }).notNull(),
    channel: text("channel", { enum: ["sms", "whatsapp"] }).notNull(),
    /** drivers (panel 1), invitations (panel 2), list (tools: typed phone list), retry (failed rows of another campaign) */
    source: text("source", { enum: ["drivers", "invitations", "list", "retry"] }).notNull(),
    message: text("message"),
    template: text("template", { mode: "json" }).$type<{ name: string; language: string; components?: unknown[] }>(),
    audience: text("audience", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id),
    idempotencyKey: text("idempotency_key").notNull(),
    status: text("status", { enum: ["queued", "expanding", "sending", "done", "failed"] })
      .notNull()
      .default("queued"),
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
    status: text("status", { enum: ["pending", "sending", "sent", "delivered", "failed", "skipped"] })
      .notNull()
      .default("pending"),
    providerId: text("provider_id"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    attempts: integer("attempts").notNull().default(0),
    deadLettered: integer("dead_lettered", { mode: "boolean" }).notNull().default(false),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("campaign_messages_campaign_phone").on(t.campaignId, t.phone),
    index("campaign_messages_status").on(t.campaignId, t.status),
    index("campaign_messages_provider").on(t.providerId),
    // The cron sweep finds rows left in 'sending' by a crashed consumer across all campaigns.
    index("campaign_messages_lease").on(t.status, t.updatedAt),
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
  (t) => [index("audit_log_at").on(t.at)],
);
