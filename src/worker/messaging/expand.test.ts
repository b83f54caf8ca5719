import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEAD_LETTER_QUEUE } from "../queue";
import { campaignStatus, deliver, dispatchJobs, expanded, listCampaign, rows, setup } from "../test/campaign-queue";
import { createUser, uniquePhone } from "../test/fixtures";

describe("expand", () => {
  it("materialises the recipients in one statement and queues dispatch jobs in batches of at most 100", async () => {
    const s = setup();
    const phones = Array.from({ length: 250 }, () => uniquePhone());
    const optedOut = await createUser({ phone: phones[7]!, smsOptOut: true });
    await env.DB.prepare("INSERT INTO opt_outs (phone, channel, keyword) VALUES (?, 'sms', 'STOP')").bind(phones[8]).run();
    const id = await expanded(s, phones);
    const all = await rows(id);
    expect(all).toHaveLength(250);
    expect(
      all
        .filter((r) => r.status === "skipped")
        .map((r) => r.phone)
        .sort(),
    ).toEqual([optedOut.phone, phones[8]!].sort());
    expect(s.queue.batches).toEqual([100, 100, 48]);
    expect(new Set(dispatchJobs(s).map((j) => j.messageId)).size).toBe(248);
    expect(await campaignStatus(id)).toMatchObject({
      status: "sending",
      total: 250,
      skipped: 2,
      dispatch_cursor: Math.max(...all.filter((r) => r.status === "pending").map((r) => r.id)),
    });

    // Redelivered: nothing inserted twice, nothing queued twice.
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    expect(await rows(id)).toHaveLength(250);
    expect(s.queue.batches).toEqual([100, 100, 48]);
  });

  it("resumes from its cursor after dying halfway through queueing", async () => {
    const s = setup({}, { failOnBatch: 2 });
    const phones = Array.from({ length: 230 }, () => uniquePhone());
    const id = await listCampaign(s, phones);
    const first = await deliver(s, [{ kind: "expand", campaignId: id }]);
    expect(first.retried).toEqual(["m0"]);
    expect(await campaignStatus(id)).toMatchObject({ status: "expanding" });
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    const ids = dispatchJobs(s).map((j) => j.messageId);
    expect(ids).toHaveLength(230);
    expect(new Set(ids).size).toBe(230);
    expect(await campaignStatus(id)).toMatchObject({ status: "sending" });
  });

  it("records a dead-lettered expansion on the campaign and its rows", async () => {
    const s = setup({}, { failOnBatch: 1 });
    const id = await listCampaign(s, [uniquePhone(), uniquePhone()]);
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    await deliver(s, [{ kind: "expand", campaignId: id }], { queue: DEAD_LETTER_QUEUE });
    expect(await campaignStatus(id)).toMatchObject({ status: "failed" });
    expect((await rows(id)).map((r) => [r.status, r.error_code, r.dead_lettered])).toEqual([
      ["failed", "expand_failed", 1],
      ["failed", "expand_failed", 1],
    ]);
  });
});
