import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, uniquePhone, uniqueTag } from "../test/fixtures";
import { hubSignature, metaPost, nowSeconds, optOutOf, PHONE_NUMBER_ID, rowOf, sendingRow, sentRow } from "../test/webhook-requests";

describe("/api/webhooks/whatsapp", () => {
  it("echoes the challenge to Meta's subscription check with our verify token only", async () => {
    const ok = await api("/api/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=test-verify-token&hub.challenge=1158201444");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    expect((await api("/api/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1")).status).toBe(403);
    expect((await api("/api/webhooks/whatsapp?hub.mode=unsubscribe&hub.verify_token=test-verify-token&hub.challenge=1")).status).toBe(403);
    expect((await api("/api/webhooks/whatsapp?hub.mode=subscribe&hub.challenge=1")).status).toBe(403);
  });

  it("records statuses and keywords from a signed payload", async () => {
    const delivered = await sentRow(`wamid.${uniqueTag("d")}`, "whatsapp");
    const failed = await sentRow(`wamid.${uniqueTag("f")}`, "whatsapp");
    const ids = await Promise.all(
      [delivered, failed].map(
        async (id) => (await env.DB.prepare("SELECT provider_id FROM campaign_messages WHERE id = ?").bind(id).first<{ provider_id: string }>())!.provider_id,
      ),
    );
    const stopper = await createUser();
    const helpAsker = uniquePhone();
    const res = await metaPost({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "200000000000000",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { phone_number_id: PHONE_NUMBER_ID },
                statuses: [
                  { id: ids[0], status: "delivered", recipient_id: "13055550100" },
                  { id: ids[1], status: "failed", errors: [{ code: 131026, title: "Message undeliverable" }] },
                ],
                messages: [
                  { from: stopper.phone.slice(1), type: "text", text: { body: "Stop" } },
                  { from: helpAsker.slice(1), type: "text", text: { body: "HELP" } },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(await rowOf(delivered)).toMatchObject({ status: "delivered" });
    expect(await rowOf(failed)).toMatchObject({ status: "failed", error_code: "131026", error_message: "Message undeliverable" });
    expect(await optOutOf(stopper.phone, "whatsapp")).toMatchObject({ keyword: "STOP" });
    // A revocation on WhatsApp is honoured on SMS too, and confirmed once, on WhatsApp.
    expect(await env.DB.prepare("SELECT whatsapp_opt_out, sms_opt_out FROM users WHERE id = ?").bind(stopper.id).first()).toEqual({
      whatsapp_opt_out: 1,
      sms_opt_out: 1,
    });
    const confirmations = await env.DB.prepare('SELECT channel, body FROM outbox WHERE "to" = ?').bind(stopper.phone).all<{ channel: string; body: string }>();
    expect(confirmations.results).toEqual([{ channel: "whatsapp", body: expect.stringContaining("no more texts or WhatsApp messages") }]);
    const reply = await env.DB.prepare('SELECT channel, body FROM outbox WHERE "to" = ?').bind(helpAsker).first<{ channel: string; body: string }>();
    expect(reply?.channel).toBe("whatsapp");
    expect(reply?.body).toContain("Reply STOP to opt out");
  });

  it("ignores events about another business number (a shared app), and a START older than the STOP applied", async () => {
    const phone = uniquePhone();
    const keyword = (body: string, at: number, phoneNumberId = PHONE_NUMBER_ID) =>
      metaPost({
        entry: [
          {
            changes: [
              {
                value: {
                  metadata: { phone_number_id: phoneNumberId },
                  messages: [{ id: uniqueTag("wamid.in"), from: phone.slice(1), timestamp: String(at), type: "text", text: { body } }],
                },
              },
            ],
          },
        ],
      });
    expect((await keyword("STOP", Number(nowSeconds()), "999999999999999")).status).toBe(200);
    expect(await optOutOf(phone, "whatsapp")).toBeNull();
    await keyword("STOP", Number(nowSeconds()));
    expect(await optOutOf(phone, "whatsapp")).not.toBeNull();
    // Sent a minute before the STOP, arriving after it: the STOP stands.
    await keyword("START", Number(nowSeconds()) - 60);
    expect(await optOutOf(phone, "whatsapp")).not.toBeNull();
  });

  it("settles a send whose answer was lost from a status naming its row (biz_opaque_callback_data)", async () => {
    const id = await sendingRow("whatsapp");
    const wamid = uniqueTag("wamid.");
    const status = (phoneNumberId: string) =>
      metaPost({
        entry: [
          {
            changes: [
              {
                value: { metadata: { phone_number_id: phoneNumberId }, statuses: [{ id: wamid, status: "sent", biz_opaque_callback_data: `m:${id}` }] },
              },
            ],
          },
        ],
      });
    await status("999999999999999");
    expect(await rowOf(id)).toMatchObject({ status: "sending" });
    await status(PHONE_NUMBER_ID);
    expect(await env.DB.prepare("SELECT status, provider_id, held_until FROM campaign_messages WHERE id = ?").bind(id).first()).toEqual({
      status: "sent",
      provider_id: wamid,
      held_until: null,
    });
  });

  it("answers 401/403 to unsigned or wrongly signed payloads, writing nothing, and 400 to signed garbage", async () => {
    const phone = uniquePhone();
    const payload = { entry: [{ changes: [{ value: { messages: [{ from: phone.slice(1), type: "text", text: { body: "STOP" } }] } }] }] };
    expect((await metaPost(payload, null)).status).toBe(401);
    expect((await metaPost(payload, await hubSignature("wrong-secret", JSON.stringify(payload)))).status).toBe(403);
    expect((await metaPost(payload, `sha256=${"0".repeat(64)}`)).status).toBe(403);
    expect(await optOutOf(phone, "whatsapp")).toBeNull();
    expect((await metaPost("{not json")).status).toBe(400);
  });
});
