import { Hono } from "hono";
import { inviteSchema } from "../../shared/billing";
import { requireUser, requireVerified } from "../auth/middleware";
import { billingContext } from "../billing/context";
import { invitationPage, inviteFriend } from "../billing/invitations";
import type { AppEnv } from "../context";
import { validate } from "../validate";
import { pagingSchema } from "./admin";

/** A driver's invitations: /api/invitations (docs/payments.md). */
export const invitationRoutes = new Hono<AppEnv>()
  .use(requireUser, requireVerified)
  // Each invitation's state (invited → registered → paid → free_week), a summary, and how many may still go out today.
  .get("/", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const inviteLink = `${new URL(c.req.url).origin}/register?ref=${encodeURIComponent(c.var.user.inviteCode)}`;
    return c.json({ ...(await invitationPage(c.var.db, c.var.user.id, page, pageSize)), inviteLink });
  })
  .post("/", validate("json", inviteSchema), async (c) => {
    const invitation = await inviteFriend(billingContext(c), c.var.user, c.req.valid("json").phoneNumber, new URL(c.req.url).origin);
    return c.json({ invitation }, 201);
  });
