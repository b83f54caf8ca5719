import { and, eq } from "drizzle-orm";
import type { App } from "../../shared/auth";
import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import { recordAudit, userTarget } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { resellers, users } from "../db/schema";
import { ApiError } from "../errors";
import { historyOf } from "../platform/history-client";
import { driverStations } from "../platform/station-catalogue";
import { readFilters } from "./dashboard";

/** Calendar blocks: a driver works a handful a day, so a week stays far below this. */
const CALENDAR_LIMIT = 200;

type CalendarDriver = Pick<SessionUser, "id" | "app" | "name" | "phone">;

/** The Monday 00:00 UTC of the week holding `date`, and the Monday after: the calendar's date range (local days are read per station). */
function weekRange(date: string): { from: number; to: number; monday: string } {
  const day = new Date(`${date}T00:00:00Z`);
  const monday = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000);
  return { from: monday.getTime(), to: monday.getTime() + 7 * 86_400_000, monday: monday.toISOString().slice(0, 10) };
}

/** What the calendar shows of a won block (the driver's history holds more). */
type ShownField = "id" | "stationId" | "stationName" | "timeZone" | "startsAt" | "endsAt" | "payCents" | "arrivedAt" | "forfeitQueuedAt";

/** A driver's calendar for a week: their windows, their stations, and the blocks they won (read from their own history by the caller). */
async function calendarAnswer<Block extends Record<ShownField, unknown>>(
  db: Db,
  driver: CalendarDriver,
  range: { monday: string },
  filters: Awaited<ReturnType<typeof readFilters>>,
  won: readonly Block[],
) {
  const blocks = won.map(
    (b): Pick<Block, ShownField> => ({
      id: b.id,
      stationId: b.stationId,
      stationName: b.stationName,
      timeZone: b.timeZone,
      startsAt: b.startsAt,
      endsAt: b.endsAt,
      payCents: b.payCents,
      arrivedAt: b.arrivedAt,
      forfeitQueuedAt: b.forfeitQueuedAt,
    }),
  );
  const stationRows = await driverStations(
    db,
    driver.id,
    driver.app,
    driver.phone,
    (filters?.stations ?? []).map((s) => s.id),
  );
  return {
    driver: { name: driver.name, phoneNumber: driver.phone, app: driver.app },
    week: range.monday,
    schedule: filters?.schedule ?? {},
    stations: stationRows,
    blocks,
  };
}

/** A driver's calendar for the week holding `week`: their windows, their stations, and the blocks they won (from their own history). */
export async function calendarOf(db: Db, env: Pick<Env, "CAPTURE_SESSION">, driver: CalendarDriver, week: string) {
  const range = weekRange(week);
  // Blocks are placed on their station-local day, which may be a day off the UTC one: read a day either side.
  const [filters, won] = await Promise.all([
    readFilters(db, driver.id),
    historyOf(env, driver.id).blocksStarting(driver.id, range.from - 86_400_000, range.to + 86_400_000, CALENDAR_LIMIT),
  ]);
  return calendarAnswer(db, driver, range, filters, won);
}

/** Another person's calendar, by phone and app, for `caller` (see calendarDriver for who may, and the audit). */
export async function othersCalendar(db: Db, env: Pick<Env, "CAPTURE_SESSION">, caller: SessionUser, wanted: { phone: string; app: App; week: string }) {
  return calendarOf(db, env, await calendarDriver(db, caller, wanted), wanted.week);
}

/**
 * Another driver's calendar: administrators; the driver themself; and the driver's reseller (an
 * approved reseller whose referral code the driver registered with, in the same app).
 */
async function maySeeCalendar(db: Db, caller: SessionUser, driver: { id: number; app: string; referralCode: string | null } | null): Promise<boolean> {
  if (caller.isAdmin) return true;
  if (!driver) return false;
  if (driver.id === caller.id) return true;
  if (!driver.referralCode || driver.app !== caller.app) return false;
  const reseller = await db
    .select({ code: resellers.referralCode })
    .from(resellers)
    .where(and(eq(resellers.userId, caller.id), eq(resellers.status, "approved"), eq(resellers.referralCode, driver.referralCode)))
    .get();
  return reseller !== undefined;
}

/**
 * The driver whose calendar `caller` asks for, by phone and app. Anyone but an administrator or
 * the driver's reseller is refused (403) whether the driver exists or not; an administrator asking
 * for no such driver gets a 404. Reading another person's calendar is limited per viewer and
 * audited before anything is read: no audit row, no calendar.
 */
async function calendarDriver(db: Db, caller: SessionUser, wanted: { phone: string; app: App; week: string }): Promise<CalendarDriver> {
  const driver = await db
    .select({ id: users.id, app: users.app, name: users.name, phone: users.phone, referralCode: users.referralCode })
    .from(users)
    .where(and(eq(users.phone, wanted.phone), eq(users.app, wanted.app), eq(users.isAdmin, false)))
    .get();
  if (!(await maySeeCalendar(db, caller, driver ?? null)))
    throw new ApiError("forbidden", "Only an administrator or the driver's reseller may see this calendar");
  if (!driver) throw new ApiError("not_found", "No such driver");
  if (driver.id !== caller.id) {
    await enforceCallerLimits(db, [limitFor("calendarViewPerViewer", String(caller.id))]);
    await recordAudit(db, {
      actorId: caller.id,
      action: "driver.calendar_viewed",
      target: userTarget(driver.id),
      details: { week: wanted.week, as: caller.isAdmin ? "admin" : "reseller" },
    });
  }
  return driver;
}
