import { Hono } from "hono";
import { respondToChallenge } from "../auth/challenge-answers";
import { identityDeps } from "../auth/identity-deps";
import { requireUser } from "../auth/middleware";
import { changePassword, resetPassword, sendResetCode } from "../auth/passwords";
import { updateOwnProfile } from "../auth/profile";
import { confirmPhone, register, resendConfirmCode } from "../auth/registration";
import {
  changePasswordSchema,
  confirmSchema,
  meSchema,
  phoneAndAppSchema,
  refreshSchema,
  registerSchema,
  resetPasswordSchema,
  respondSchema,
  signInSchema,
  signOutSchema,
} from "../auth/requests";
import { refreshSession, signOut } from "../auth/sessions";
import { signIn } from "../auth/sign-in";
import { signUpClaims } from "../billing/invitations";
import type { AppEnv } from "../context";
import { closeLiveSockets } from "../platform/live-client";
import { validate } from "../validate";

/** Identity: /api/auth/* (docs/api.md). The flows are in src/worker/auth/. */
export const authRoutes = new Hono<AppEnv>()
  .post("/register", validate("json", registerSchema), async (c) => c.json(await register(identityDeps(c), signUpClaims, c.req.valid("json")), 201))
  .post("/confirm", validate("json", confirmSchema), async (c) => c.json(await confirmPhone(identityDeps(c), signUpClaims, c.req.valid("json"))))
  .post("/resend-code", validate("json", phoneAndAppSchema), async (c) => c.json(await resendConfirmCode(identityDeps(c), c.req.valid("json"))))
  .post("/sign-in", validate("json", signInSchema), async (c) => c.json(await signIn(identityDeps(c), c.req.valid("json"))))
  .post("/respond", validate("json", respondSchema), async (c) => c.json(await respondToChallenge(identityDeps(c), c.req.valid("json"))))
  .post("/refresh", validate("json", refreshSchema), async (c) => c.json(await refreshSession(identityDeps(c), c.req.valid("json").refreshToken)))
  // The sessions it ends close their live dashboards' sockets too (platform/live-client.ts).
  .post("/sign-out", validate("json", signOutSchema), async (c) =>
    c.json(await signOut(identityDeps(c), c.req.valid("json"), c.req.header("Authorization"), (userId, session) => closeLiveSockets(c.env, userId, session))),
  )
  .post("/forgot-password", validate("json", phoneAndAppSchema), async (c) => c.json(await sendResetCode(identityDeps(c), c.req.valid("json"))))
  .post("/reset-password", validate("json", resetPasswordSchema), async (c) => c.json(await resetPassword(identityDeps(c), c.req.valid("json"))))
  .post("/change-password", requireUser, validate("json", changePasswordSchema), async (c) =>
    c.json(await changePassword(identityDeps(c), c.var.user, c.var.sessionId, c.req.valid("json"))),
  )
  .patch("/me", requireUser, validate("json", meSchema), async (c) => c.json(await updateOwnProfile(c.var.db, c.var.user.id, c.req.valid("json"))));
