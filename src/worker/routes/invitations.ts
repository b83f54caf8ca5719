import { Hono } from "hono";
import { inviteSchema } from "../../shared/billing";
import { requireUser, requireVerified } from "../auth/middleware";
import { clientAddress } from "../auth/rate-limit";
import { invitationPage, inviteFriend } from "../billing/invitations";
import { billingContext } from "../billing/run-context";
import { appUrl } from "../config";
import type { AppEnv } from "../context";
import { pagingSchema } from "../cross-cutting/paging";
import { validate } from "../validate";

/** A driver's invitations: /api/invitations (docs/payments.md). */
export const invitationRoutes = new Hono<AppEnv>()
  .use(requireUser, requireVerified)
  // Each invitation's state (invited → registered → paid → free_week), a summary, and how many may still go out today.
  .get("/", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const inviteLink = appUrl(c.var.config, `/register?ref=${encodeURIComponent(c.var.user.inviteCode)}`);
    return c.json({ ...(await invitationPage(c.var.db, c.var.user.id, page, pageSize)), inviteLink });
  })
  .post("/", validate("json", inviteSchema), async (c) => {
    const address = clientAddress(c.req.header("CF-Connecting-IP"));
    // The same answer for every number: who is a driver, or opted out, is not the inviter's to learn.
    const invitation = await inviteFriend(billingContext(c), c.var.config, c.var.user, c.req.valid("json").phoneNumber, address);
    return c.json({ invitation }, 201);
  });
