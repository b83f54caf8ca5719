/**
 * Won blocks on the dashboard (docs/engine.md, "Accepting"): a block won on the accept's bare 200
 * gets the id forfeits need from the platform's schedule (until then it cannot be forfeited yet),
 * and "I've arrived", which no public call backs, is offered only where the modelled check-in is
 * configured.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../index";
import { captureSessionOf } from "../platform/capture";
import { connectedDriver, recordWonBlock } from "../test/connected-driver";
import { waitForRecords } from "../test/engine-fixtures";
import { call, json, signIn, uniqueAddress } from "../test/fixtures";

const HOUR = 3_600_000;
type Row = { id: number; status: string; startsAt: number; forfeitable: boolean; checkInAvailable: boolean; canCheckIn: boolean };
const wonRows = async (token: string) => (await json(await call("/api/driver/offers?status=won", { token }))).rows as Row[];

describe("won blocks and the platform's schedule", () => {
  it("a block the engine won gets its assignment's id from the schedule: then it can be forfeited", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    const startsAt = Math.floor((Date.now() + 5 * HOUR) / 1000) * 1000;
    await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt, endsAt: startsAt + 2 * HOUR, payCents: 7000 }]);
    await captureSessionOf(env, d.user.id).start(d.user.id);
    await waitForRecords(d.user.id, 1);
    let row: Row | undefined;
    for (let i = 0; i < 40 && !row?.forfeitable; i++) {
      await new Promise((r) => setTimeout(r, 100));
      [row] = await wonRows(idToken);
    }
    await captureSessionOf(env, d.user.id).stop(d.user.id);
    expect(row).toMatchObject({ status: "won", forfeitable: true, checkInAvailable: true });
    expect((await call(`/api/driver/offers/${row!.id}/forfeit`, { token: idToken, method: "POST" })).status).toBe(200);
    expect((await d.world.blocks()).filter((b) => b.driverId === d.driverId)).toEqual([]);
  });

  it("a won block the schedule does not list is not forfeitable yet: a forfeit reads the schedule, then says so", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    const startsAt = Date.now() + 3 * HOUR;
    // Won (its accept answered 200) but the platform's schedule has nothing at its station and times.
    await recordWonBlock(d, { platformOfferId: `unscheduled-${d.user.id}`, startsAt, blockId: null });
    const [row] = await wonRows(idToken);
    expect(row).toMatchObject({ forfeitable: false, checkInAvailable: true });
    const reads = async () => (await d.world.calls(d.customerId))["GET /scheduledAssignments"] ?? 0;
    const before = await reads();
    const res = await call(`/api/driver/offers/${row!.id}/forfeit`, { token: idToken, method: "POST" });
    expect(res.status).toBe(409);
    expect((await json(res)).error.details).toEqual({ reason: "not_scheduled_yet" });
    expect(await reads()).toBe(before + 1);
    expect((await d.world.calls(d.customerId))["DELETE /schedule/blocks/:id"]).toBeUndefined();
  });

  it("where no check-in is configured, a won block says I've arrived is not available, and the call is refused", async () => {
    const d = await connectedDriver();
    const startsAt = Date.now() + 30 * 60_000;
    await recordWonBlock(d, { platformOfferId: `no-check-in-${d.user.id}`, startsAt, blockId: `SA-${d.user.id}` });
    const { idToken } = await signIn(d.user);
    const off = { ...env, PLATFORM_CHECK_IN: "off" };
    const request = async (path: string, method = "GET") => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`https://bp.test${path}`, { method, headers: { Authorization: `Bearer ${idToken}`, "CF-Connecting-IP": uniqueAddress() } }),
        off,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const [row] = (await json(await request("/api/driver/offers?status=won"))).rows as Row[];
    expect(row).toMatchObject({ forfeitable: true, checkInAvailable: false, canCheckIn: true });
    const res = await request(`/api/driver/offers/${row!.id}/arrive`, "POST");
    expect(res.status).toBe(409);
    expect((await json(res)).error.details).toEqual({ reason: "check_in_unavailable" });
    expect((await d.world.calls(d.customerId))["POST /schedule/blocks/:id/arrive"]).toBeUndefined();
  });
});
