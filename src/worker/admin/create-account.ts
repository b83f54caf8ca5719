import { and, eq } from "drizzle-orm";
import type { App, Language } from "../../shared/auth";
import { maskPhone } from "../../shared/phone";
import { insertUser } from "../auth/insert-user";
import { hashPassword } from "../auth/password";
import { randomTemporaryPassword } from "../auth/random";
import { chargeRequestedText } from "../auth/sms-budget";
import { toUserItem } from "../auth/user-item";
import { restoreErasedOptOuts } from "../compliance/erased-opt-outs";
import type { Config } from "../config";
import type { SessionUser } from "../context";
import { recordAudit } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import type { Logger } from "../log";
import { createSmsProvider } from "../providers/sms/provider";

/** An account an administrator asks for (routes/admin-users.ts validates it). */
export type NewAccount = {
  phoneNumber: string;
  app: App;
  name: string;
  email?: string | null;
  language: Language;
  isAdmin: boolean;
  roleName?: string;
  billingDetails: boolean;
};

function temporaryPasswordMessage(language: "en" | "es", password: string): string {
  return language === "es"
    ? `Blockpilot: tu cuenta está lista. Entra con este teléfono y la contraseña temporal ${password}`
    : `Blockpilot: your account is ready. Sign in with this phone number and the temporary password ${password}`;
}

/**
 * An account an administrator creates (docs/admin.md). Only the owner creates administrators. The
 * temporary password is generated here and only ever sent by SMS to the account's phone (never
 * answered to the admin), and the account must choose its own at first sign-in
 * (NEW_PASSWORD_REQUIRED). The admin waits for the send: an account whose password never arrived
 * is useless, so it is removed. Audited.
 */
export async function createAccount(
  deps: { db: Db; env: Env; config: Pick<Config, "CODE_SMS_HOURLY_BUDGET">; log: Logger },
  actor: SessionUser,
  body: NewAccount,
) {
  const { db, env, log } = deps;
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

  const now = Date.now();
  // The temporary password is a text sent on an administrator's request: it spends the same budget as codes.
  await chargeRequestedText({ db, config: deps.config, log, now }, { purpose: "admin.temporary_password", texted: true, mayUseReserve: false });
  const temporaryPassword = randomTemporaryPassword();
  const created = await insertUser(db, {
    app: body.app,
    phone: body.phoneNumber,
    name: body.name,
    email: body.email ?? null,
    passwordHash: await hashPassword(temporaryPassword, env.PASSWORD_PEPPER),
    language: body.language,
    isAdmin: body.isAdmin,
    roleName: body.isAdmin ? (body.roleName ?? "admin") : null,
    roleProperties: body.isAdmin ? { billingDetails: body.billingDetails } : null,
    mustChangePassword: true,
    createdAt: now,
  });
  await restoreErasedOptOuts(db, env.PASSWORD_PEPPER, [created.phone]);

  const outcome = await createSmsProvider(env).send({ to: created.phone, body: temporaryPasswordMessage(created.language, temporaryPassword) });
  if (!outcome.ok) {
    await db.delete(users).where(eq(users.id, created.id));
    log.error("admin.user_create.sms_failed", { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
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
  return { Item: toUserItem(created, now), delivery: { destination: maskPhone(created.phone) } };
}
