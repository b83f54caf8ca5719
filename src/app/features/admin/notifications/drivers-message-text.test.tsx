import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { mockApi, owner, renderScreen, stubConfirm, support } from "../../../test/admin-harness";
import { audience, baseRoutes, messageBox, resetEachTest, sentRoute, summaryOf, TOTAL } from "../../../test/drivers-panel";
import { DriversPanel } from "./DriversPanel";

resetEachTest();

describe("SMS text and its limit", () => {
  it("is labelled with the owner's name and only the owner may uncheck it", async () => {
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    const limit = screen.getByRole("checkbox", { name: "Limit characters" });
    expect(limit).toBeChecked();
    expect(limit).toBeDisabled();
    expect(await screen.findByText("only Olivia Owner can uncheck this")).toBeInTheDocument();
  });

  it("lets the owner uncheck it and write past one segment", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: owner });
    const limit = screen.getByRole("checkbox", { name: "Limit characters" });
    expect(limit).toBeEnabled();
    fireEvent.change(messageBox(), { target: { value: "a".repeat(160) } });
    await user.type(messageBox(), "b");
    expect(messageBox()).toHaveValue("a".repeat(160));
    expect(screen.getByText(/one SMS is the limit/)).toBeInTheDocument();
    await user.click(limit);
    await user.type(messageBox(), "b");
    expect(messageBox()).toHaveValue(`${"a".repeat(160)}b`);
    expect(screen.getByText("145 characters remaining · 2 SMS · GSM-7")).toBeInTheDocument();
  });

  it("counts GSM-7, the extension characters and € as 2, and an emoji as UTF-16", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    expect(screen.getByText("160 characters remaining · 1 SMS · GSM-7")).toBeInTheDocument();
    await user.type(messageBox(), "Pay 5€");
    expect(screen.getByText("153 characters remaining · 1 SMS · GSM-7 with extended characters")).toBeInTheDocument();
    await user.clear(messageBox());
    await user.type(messageBox(), "Hola 😀");
    // 5 + 2 code units for the emoji, out of 70.
    expect(screen.getByText("63 characters remaining · 1 SMS · Unicode (UTF-16): “😀” (U+1F600) is not in GSM-7")).toBeInTheDocument();
  });

  it("names the character that makes a Spanish marketing text UTF-16, and the opt-out line is not one", async () => {
    const user = userEvent.setup();
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByRole("radio", { name: "Marketing: offers, news, invitations to join" }));
    await user.selectOptions(screen.getByLabelText("Message language"), "es");
    await user.type(messageBox(), "Bloques hoy");
    // 11 + newline + "Responde STOP para darte de baja" (32) = 44 of 160: the line keeps the text GSM-7.
    expect(screen.getByText("116 characters remaining · 1 SMS · GSM-7")).toBeInTheDocument();
    await user.type(messageBox(), " más");
    expect(screen.getByText("22 characters remaining · 1 SMS · Unicode (UTF-16): “á” (U+00E1) is not in GSM-7")).toBeInTheDocument();
  });

  it("refuses an emoji that would push a GSM text past one segment", async () => {
    mockApi([...baseRoutes]);
    renderScreen(<DriversPanel />, { user: support });
    fireEvent.change(messageBox(), { target: { value: "a".repeat(69) } });
    fireEvent.change(messageBox(), { target: { value: `${"a".repeat(69)}😀` } });
    expect(messageBox()).toHaveValue("a".repeat(69));
    fireEvent.change(messageBox(), { target: { value: `${"a".repeat(68)}😀` } });
    expect(messageBox()).toHaveValue(`${"a".repeat(68)}😀`);
    expect(screen.getByText("0 characters remaining · 1 SMS · Unicode (UTF-16): “😀” (U+1F600) is not in GSM-7")).toBeInTheDocument();
  });
});

describe("the messaging rules in panel 1", () => {
  it("asks what the message is for, counts the opt-out line, and sends purpose and language", async () => {
    const user = userEvent.setup();
    const api = mockApi([
      {
        path: "/api/admin/audience/review",
        reply: () => ({
          body: summaryOf(TOTAL, {
            excluded: { opted_out: 2, no_consent: 5, frequency_cap: 1, whatsapp_marketing_us: 0 },
            sendNow: 30,
            deferred: { count: 19, first: new Date(2026, 6, 16, 8).getTime(), last: new Date(2026, 6, 16, 11).getTime() },
          }),
        }),
      },
      {
        path: "/api/admin/audience",
        reply: (call) => {
          const page = audience(call);
          const rows = page.body.rows.map((r, i) => ({
            ...r,
            exclusion: i === 0 ? "no_consent" : null,
            deferredUntil: i === 1 ? new Date(2026, 6, 16, 8).getTime() : null,
          }));
          return { body: { ...page.body, rows } };
        },
      },
      ...baseRoutes,
      sentRoute(),
    ]);
    stubConfirm(true);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Say what this message is for.")).toBeInTheDocument();
    await user.click(screen.getByRole("radio", { name: "Marketing: offers, news, invitations to join" }));
    expect(screen.getByText("“Reply STOP to opt out” is added at the end and counted in the limit.")).toBeInTheDocument();
    await user.type(messageBox(), "Hi");
    // 2 characters + newline + the 21-character line: 24 of 160.
    expect(screen.getByText(/136 characters remaining/)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText("Message language"), "es");
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Sent at once: 30")).toBeInTheDocument();
    expect(screen.getByText("Deferred to their allowed hours: 19, from 16/07/26 08:00 to 16/07/26 11:00")).toBeInTheDocument();
    expect(screen.getByText("Left out: Opted out: 2 · No consent basis: 5 · Frequency cap: 1")).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Preview" })).toHaveValue("Hi\nResponde STOP para darte de baja");
    const table = await screen.findByRole("table");
    expect(within(table).getAllByRole("row")[1]).toHaveTextContent("No consent basis");
    expect(within(table).getAllByRole("row")[2]).toHaveTextContent("Waits until 16/07/26 08:00");
    const q = api.to("/api/admin/audience").at(-1)!.url.searchParams;
    expect([q.get("channel"), q.get("purpose")]).toEqual(["sms", "marketing"]);
    await user.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    expect(api.to("/api/admin/campaigns", "POST")[0]!.body).toMatchObject({ message: "Hi", purpose: "marketing", language: "es" });
  });

  it("refuses WhatsApp marketing to +1 numbers before the review and says why", async () => {
    const user = userEvent.setup();
    mockApi([
      ...baseRoutes.filter((r) => r.path !== "/api/flex/v1/admin/sendWhatsapp"),
      {
        path: "/api/flex/v1/admin/sendWhatsapp",
        reply: () => ({
          body: { Items: [{ id: "m1", name: "promo", language: "en_US", category: "MARKETING", components: [{ type: "BODY", text: "Deals" }] }] },
        }),
      },
    ]);
    renderScreen(<DriversPanel />);
    await user.click(screen.getByLabelText("WhatsApp"));
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.selectOptions(await screen.findByLabelText("Template"), "m1");
    expect(screen.getByText("Category: MARKETING")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("Meta does not deliver WhatsApp marketing templates to +1 (US) numbers");
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("WhatsApp marketing cannot reach +1 numbers.")).toBeInTheDocument();
    expect(screen.queryByText(/This message will be sent to/)).not.toBeInTheDocument();
  });
});
