import { Hono } from "hono";
import { isoDate } from "../../shared/dates";
import { requireUser } from "../auth/middleware";
import { isInGoodStanding, toUserItem, withOldFieldNames } from "../auth/user-item";
import type { AppEnv } from "../context";

/** HMAC-SHA256 of the phone, hex: the chat provider checks it to trust the identity we hand the widget. */
async function phoneHash(secret: string, phone: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(phone)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

const productLabel = { flex: "Blockpilot Flex", spark: "Blockpilot Spark" } as const;

/**
 * The signed-in driver: /api/flex/v1/user and friends (docs/api.md). Open to unconfirmed phones
 * too: the SPA reads this to route them to /confirm-account.
 */
export const userRoutes = new Hono<AppEnv>()
  .get("/", requireUser, (c) => c.json({ Item: withOldFieldNames(toUserItem(c.var.user)) }))

  .get("/chat", requireUser, async (c) => {
    const user = c.var.user;
    const scriptUrl = c.env.CHAT_WIDGET_URL?.trim() || null;
    return c.json({
      enabled: scriptUrl !== null,
      scriptUrl,
      email: user.email,
      name: user.name,
      phone: user.phone,
      phoneHash: await phoneHash(c.env.CHAT_HASH_SECRET, user.phone),
      label: productLabel[user.app],
      attributes: {
        good_standing: isInGoodStanding(user, Date.now()),
        expiration_date: isoDate(user.expirationAt),
        human_region: user.humanRegion,
        account_connected: user.accountConnected,
      },
    });
  });
