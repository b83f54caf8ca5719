/**
 * The Flex platform's answers as the adapter reads them (flex-platform.ts), leniently where the
 * public clients show nothing (docs/engine.md, "The protocol"): what is needed is kept, the rest
 * ignored, and an entry that cannot be read is dropped without losing the others.
 */
import { z } from "zod";
import type { PlatformOffer, ScheduledBlock } from "./platform";

/** Epoch seconds (sometimes with a fraction, sometimes a numeric string) as milliseconds; null when unreadable. */
export function epochMs(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) return null;
  // Milliseconds already (a 13-digit value): read as such.
  return Math.round(n > 1e12 ? n : n * 1000);
}

const cents = (dollars: number) => Math.round(dollars * 100);
const seconds = z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/)]).transform(Number);

/** /auth/register: the nested tokens (`expires_in` a string here) and who the account is. */
export const registerAnswer = z.object({
  response: z.object({
    success: z.object({
      tokens: z.object({ bearer: z.object({ access_token: z.string().min(1), refresh_token: z.string().min(1), expires_in: seconds }) }),
      extensions: z
        .object({ customer_info: z.object({ name: z.string().optional(), user_id: z.string().optional() }).passthrough().optional() })
        .passthrough()
        .optional(),
      customer_id: z.string().optional(),
    }),
  }),
});

/** /auth/token: a new access token (`expires_in` a number here; no new refresh token). */
export const refreshAnswer = z.object({ access_token: z.string().min(1), expires_in: seconds });

export const eligibleAnswer = z.object({ serviceAreaIds: z.array(z.string().min(1)) });
export const filterOptionsAnswer = z.object({
  serviceAreaPoolList: z.array(z.object({ serviceAreaId: z.string().min(1), serviceAreaName: z.string().optional() }).passthrough()),
});

const offerShape = z
  .object({
    offerId: z.string().min(1),
    serviceAreaId: z.string().min(1),
    startTime: z.unknown(),
    endTime: z.unknown(),
    expirationDate: z.unknown().optional(),
    rateInfo: z.object({ priceAmount: z.number().nonnegative() }).passthrough(),
    hidden: z.boolean().optional(),
  })
  .passthrough();

/** GetOffersForProviderPost: the readable offers of `offerList` (one of the wrong shape is dropped). */
export function readOffers(body: unknown): PlatformOffer[] | null {
  const list = z.object({ offerList: z.array(z.unknown()) }).safeParse(body);
  if (!list.success) return null;
  const offers: PlatformOffer[] = [];
  for (const entry of list.data.offerList) {
    const o = offerShape.safeParse(entry);
    if (!o.success) continue;
    const startsAt = epochMs(o.data.startTime);
    const endsAt = epochMs(o.data.endTime);
    if (startsAt === null || endsAt === null || endsAt <= startsAt) continue;
    offers.push({
      id: o.data.offerId,
      stationId: o.data.serviceAreaId,
      startsAt,
      endsAt,
      payCents: cents(o.data.rateInfo.priceAmount),
      // Often the block's start: an offer stays listed until someone takes it.
      expiresAt: epochMs(o.data.expirationDate) ?? startsAt,
      hidden: o.data.hidden === true,
    });
  }
  return offers;
}

const ID_FIELDS = ["scheduledAssignmentId", "assignmentId", "blockId", "id"] as const;

/**
 * scheduledAssignments, whose entries' format is not public: an entry with times counts (busy
 * time), with its id and station when it has them, its pay when it says.
 */
export function readAssignments(body: unknown): ScheduledBlock[] | null {
  const list = z.object({ scheduledAssignments: z.array(z.unknown()) }).safeParse(body);
  if (!list.success) return null;
  const blocks: ScheduledBlock[] = [];
  for (const entry of list.data.scheduledAssignments) {
    if (!entry || typeof entry !== "object") continue;
    const e = entry as Record<string, unknown>;
    const startsAt = epochMs(e.startTime);
    const endsAt = epochMs(e.endTime);
    if (startsAt === null || endsAt === null) continue;
    const id = ID_FIELDS.map((f) => e[f]).find((v): v is string => typeof v === "string" && v.length > 0) ?? null;
    const rate = e.rateInfo as { priceAmount?: unknown } | undefined;
    blocks.push({
      id,
      offerId: typeof e.offerId === "string" ? e.offerId : null,
      stationId: typeof e.serviceAreaId === "string" ? e.serviceAreaId : "",
      startsAt,
      endsAt,
      payCents: typeof rate?.priceAmount === "number" ? cents(rate.priceAmount) : 0,
      arrivedAt: epochMs(e.arrivedAt),
    });
  }
  return blocks;
}

/** The assignment that is this won block: same station and times (the accept's answer names none). */
export function matchingAssignment(
  blocks: readonly ScheduledBlock[],
  won: { stationId: string; startsAt: number; endsAt: number },
): ScheduledBlock | undefined {
  const close = (a: number, b: number) => Math.abs(a - b) < 1000;
  return blocks.find((b) => b.id !== null && b.stationId === won.stationId && close(b.startsAt, won.startsAt) && close(b.endsAt, won.endsAt));
}
