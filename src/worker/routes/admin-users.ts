import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { appSchema, emailSchema, languageSchema, phoneSchema } from "../../shared/auth";
import { maskPhone } from "../../shared/phone";
import { recordAudit } from "../auth/audit";
import { requireAdmin, requireUser } from "../auth/middleware";
import { hashPassword } from "../auth/password";
import { randomInviteCode, randomTemporaryPassword } from "../auth/random";
import { toUserItem } from "../auth/user-item";
import type { AppEnv } from "../context";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { createSmsProvider } from "../providers/sms/provider";
import { validate } from "../validate";

const createUserSchema = z.object({
  phoneNumber: phoneSchema,
  app: appSchema,
  name: z.string().trim().min(1).max(100),
  email: z.union([z.literal("").transform(() => null), z.null(), emailSchema]).optional(),
  language: languageSchema.default("en"),
  isAdmin: z.boolean().default(false),
  roleName: z.string().trim().min(1).max(40).optional(),
  billingDetails: z.boolean().default(false),
});

function temporaryPasswordMessage(language: "en" | "es", password: string): string {
  return language === "es"
    ? `Blockpilot: tu cuenta está lista. Entra con este teléfono y la contraseña temporal ${password}`
    : `Blockpilot: your account is ready. Sign in with this phone number and the temporary password ${password}`;
}

/**
 * Accounts an administrator creates: /api/admin/users. The temporary password is generated here
 * and only ever sent by SMS to the account's phone (never answered to the admin), and the account
 * must choose its own at first sign-in (NEW_PASSWORD_REQUIRED). Only the owner creates administrators.
 */
export const adminUserRoutes = new Hono<AppEnv>().post("/", requireUser, requireAdmin, validate("json", createUserSchema), async (c) => {
  const body = c.req.valid("json");
  const actor = c.var.user;
  const db = c.var.db;
  if ((body.isAdmin || body.roleName !== undefined) && actor.roleName !== "owner") {
    throw new ApiError("forbidden", "Only the owner may create administrator accounts");
  }
  if (!body.isAdmin && (body.roleName !== undefined || body.billingDetails)) {
    throw new ApiError("validation_failed", "roleName and billingDetails apply to administrators only", {
      details: [{ path: "isAdmin", message: "Must be true with roleName or billingDetails" }],
    });
  }
  const existing = await db.query.users.findFirst({ where: and(eq(users.app, body.app), eq(users.phone, body.phoneNumber)), columns: { id: true } });
  if (existing) throw new ApiError("conflict", "An account with this phone number already exists");

  const temporaryPassword = randomTemporaryPassword();
  const now = Date.now();
  let created: typeof users.$inferSelect;
  try {
    created = await db
      .insert(users)
      .values({
        app: body.app,
        phone: body.phoneNumber,
        name: body.name,
        email: body.email ?? null,
        passwordHash: await hashPassword(temporaryPassword, c.env.PASSWORD_PEPPER),
        language: body.language,
        isAdmin: body.isAdmin,
        roleName: body.isAdmin ? (body.roleName ?? "admin") : null,
        roleProperties: body.isAdmin ? { billingDetails: body.billingDetails } : null,
        mustChangePassword: true,
        inviteCode: randomInviteCode(),
        createdAt: now,
      })
      .returning()
      .get();
  } catch (err) {
    if (err instanceof Error && `${err.message} ${err.cause instanceof Error ? err.cause.message : ""}`.includes("users.phone")) {
      throw new ApiError("conflict", "An account with this phone number already exists");
    }
    throw err;
  }

  // The admin waits for the send: an account whose password never arrived is useless, so it is removed.
  const outcome = await createSmsProvider(c.env).send({ to: created.phone, body: temporaryPasswordMessage(created.language, temporaryPassword) });
  if (!outcome.ok) {
    await db.delete(users).where(eq(users.id, created.id));
    c.var.log.error("admin.user_create.sms_failed", { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
    throw new ApiError("unavailable", "Couldn't send the temporary password by SMS. Try again");
  }
  await recordAudit(
    db,
    {
      actorId: actor.id,
      action: "admin.user_created",
      target: `user:${created.id}`,
      details: { app: created.app, isAdmin: created.isAdmin, roleName: created.roleName },
    },
    now,
  );
  return c.json({ Item: toUserItem(created, now), delivery: { destination: maskPhone(created.phone) } }, 201);
});
