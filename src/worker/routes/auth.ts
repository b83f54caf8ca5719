import { type Context, Hono } from "hono";
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

/** The flows' dependencies for the routes that end sessions: the live dashboards of the sessions they end close (platform/live-client.ts). */
const endingSessions = (c: Context<AppEnv>) => ({
  ...identityDeps(c),
  sessionsEnded: (userId: number, sessionId: string | null, except?: string) => closeLiveSockets(c.env, userId, sessionId, except),
});

/** Identity: /api/auth/* (docs/api.md). The flows are in src/worker/auth/. */
export const authRoutes = new Hono<AppEnv>()
  .post("/register", validate("json", registerSchema), async (c) => c.json(await register(identityDeps(c), signUpClaims, c.req.valid("json")), 201))
  .post("/confirm", validate("json", confirmSchema), async (c) => c.json(await confirmPhone(endingSessions(c), signUpClaims, c.req.valid("json"))))
  .post("/resend-code", validate("json", phoneAndAppSchema), async (c) => c.json(await resendConfirmCode(identityDeps(c), c.req.valid("json"))))
  .post("/sign-in", validate("json", signInSchema), async (c) => c.json(await signIn(identityDeps(c), c.req.valid("json"))))
  .post("/respond", validate("json", respondSchema), async (c) => c.json(await respondToChallenge(endingSessions(c), c.req.valid("json"))))
  .post("/refresh", validate("json", refreshSchema), async (c) => c.json(await refreshSession(identityDeps(c), c.req.valid("json").refreshToken)))
  .post("/sign-out", validate("json", signOutSchema), async (c) => c.json(await signOut(endingSessions(c), c.req.valid("json"), c.req.header("Authorization"))))
  .post("/forgot-password", validate("json", phoneAndAppSchema), async (c) => c.json(await sendResetCode(identityDeps(c), c.req.valid("json"))))
  .post("/reset-password", validate("json", resetPasswordSchema), async (c) => c.json(await resetPassword(endingSessions(c), c.req.valid("json"))))
  .post("/change-password", requireUser, validate("json", changePasswordSchema), async (c) =>
    c.json(await changePassword(endingSessions(c), c.var.user, c.var.sessionId, c.req.valid("json"))),
  )
  .patch("/me", requireUser, validate("json", meSchema), async (c) => c.json(await updateOwnProfile(c.var.db, c.var.user.id, c.req.valid("json"))));
