import { and, asc, eq, isNotNull } from "drizzle-orm";
import type { App } from "../../shared/auth";
import type { Db } from "../db/client";
import { users } from "../db/schema";

/** The regions an audience can be filtered by: the app's drivers' regions (Flex) or delivery areas (Spark), in order. */
export async function audienceRegions(db: Db, app: App): Promise<string[]> {
  const column = app === "flex" ? users.humanRegion : users.deliveryArea;
  // Read off the (app, region) index; bounded, though in practice a few dozen.
  const rows = await db
    .selectDistinct({ region: column })
    .from(users)
    .where(and(eq(users.app, app), isNotNull(column)))
    .orderBy(asc(column))
    .limit(1000);
  return rows.map((r) => r.region as string);
}
