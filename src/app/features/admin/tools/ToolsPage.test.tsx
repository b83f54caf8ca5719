import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "../../../components/ui/Toast";
import { setLanguage } from "../../../i18n";
import { mockApi, owner, type Route, renderScreen, stubConfirm, support } from "../../../test/admin-harness";
import ToolsPage from "./ToolsPage";

const driver = (id: number, name: string, phone: string, over: Record<string, unknown> = {}) => ({
  id,
  name,
  phone,
  referral: null,
  region: "Miami",
  deliveryArea: null,
  goodStanding: true,
  accountConnected: true,
  setupComplete: true,
  expirationAt: null,
  status: "start",
  stripeExpressId: null,
  ...over,
});
const flexDrivers = [driver(1, "Ana Flex", "+13055551100"), driver(2, "Ben Flex", "+13055551101")];
const sparkDrivers = [driver(3, "Cy Spark", "+14075551200", { region: null, deliveryArea: "Orlando" })];
/** The audience preview as the server answers it: this app's drivers, searched by name, paged. */
const audienceRoute = (total?: number): Route => ({
  path: "/api/admin/audience",
  reply: (call) => {
    const q = call.url.searchParams;
    const search = (q.get("search") ?? "").toLowerCase();
    const rows = (q.get("app") === "spark" ? sparkDrivers : flexDrivers).filter((d) => d.name.toLowerCase().includes(search));
    return { body: { total: total ?? rows.length, page: Number(q.get("page")), pageSize: Number(q.get("pageSize")), rows } };
  },
});

const routes: Route[] = [
  { path: "/api/admin/settings", reply: () => ({ body: { ownerName: "Olivia Owner" } }) },
  audienceRoute(),
  {
    path: "/api/flex/v1/admin/sendWhatsapp",
    reply: () => ({
      body: {
        Items: [
          {
            id: "t1",
            name: "friend_invite",
            language: "es_MX",
            category: "UTILITY",
            components: [
              { type: "HEADER", text: "Un amigo te invitó" },
              { type: "BODY", text: "Regístrate." },
            ],
          },
        ],
      },
    }),
  },
  {
    method: "POST",
    path: "/api/admin/campaigns",
    reply: () => ({ status: 201, body: { campaign: { id: 5, total: 2 }, message: "Message sent successfully to 2 users." } }),
  },
];

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => {
  vi.unstubAllGlobals();
  act(() => toast.clear());
});

const phones = () => screen.getByRole("textbox", { name: "Phone numbers" });

describe("tools: recipients from the user tables", () => {
  it("picks Flex or Spark drivers searched and filtered on the server, and adds them to the list with the count", async () => {
    const user = userEvent.setup();
    const api = mockApi(routes);
    renderScreen(<ToolsPage />, { path: "/admin/tools" });
    await userEvent.click(await screen.findByRole("button", { name: "Pick from the user tables" }));
    const picker = await screen.findByRole("region", { name: "Pick from the user tables" });
    expect(await within(picker).findByRole("cell", { name: "Ana Flex" })).toBeInTheDocument();
    await user.type(within(picker).getByLabelText("Search by name or phone"), "ana");
    await user.selectOptions(within(picker).getByLabelText("Good standing"), "yes");
    await waitFor(() => {
      const q = api.to("/api/admin/audience").at(-1)!.url.searchParams;
      expect([q.get("app"), q.get("search"), q.get("goodStanding")]).toEqual(["flex", "ana", "yes"]);
    });
    await waitFor(() => expect(within(picker).queryByRole("cell", { name: "Ben Flex" })).not.toBeInTheDocument());
    await user.click(within(picker).getByRole("checkbox", { name: "Select +13055551100" }));
    expect(within(picker).getByText("1 selected of 1 matching")).toBeInTheDocument();
    await user.click(within(picker).getByRole("button", { name: "Add 1 selected to the list" }));
    expect(phones()).toHaveValue("+13055551100");
    expect(within(picker).getByText("1 number added to the list.")).toBeInTheDocument();
    expect(await screen.findByText("Valid numbers: 1 · duplicates removed: 0")).toBeInTheDocument();

    // Spark's drivers, every match at once, beside a pasted number; the one already listed is not repeated.
    fireEvent.change(phones(), { target: { value: "(305) 555-1100\n(786) 555-0199" } });
    await user.clear(within(picker).getByLabelText("Search by name or phone"));
    await user.selectOptions(within(picker).getByLabelText("Good standing"), "all");
    await user.selectOptions(within(picker).getByLabelText("App"), "spark");
    expect(await within(picker).findByRole("cell", { name: "Cy Spark" })).toBeInTheDocument();
    await user.click(within(picker).getByRole("button", { name: "Add the 1 match" }));
    expect(phones()).toHaveValue("(305) 555-1100\n(786) 555-0199\n+14075551200");
    expect(await screen.findByText("Valid numbers: 3 · duplicates removed: 0")).toBeInTheDocument();
    const all = api.to("/api/admin/audience").at(-1)!.url.searchParams;
    expect([all.get("app"), all.get("page"), all.get("pageSize")]).toEqual(["spark", "1", "100"]);
  });

  it("adds every match only up to 1000 at once, and says how to reach more", async () => {
    mockApi([audienceRoute(5000), ...routes]);
    renderScreen(<ToolsPage />, { path: "/admin/tools" });
    await userEvent.click(await screen.findByRole("button", { name: "Pick from the user tables" }));
    const picker = await screen.findByRole("region", { name: "Pick from the user tables" });
    expect(await within(picker).findByRole("button", { name: "Add all 5000 matching" })).toBeDisabled();
    expect(within(picker).getByText(/At most 1000 can be added at once/)).toBeInTheDocument();
  });
});

describe("tools: send to a phone list", () => {
  it("validates, de-duplicates and lists bad numbers", async () => {
    mockApi(routes);
    renderScreen(<ToolsPage />, { path: "/admin/tools" });
    fireEvent.change(phones(), { target: { value: "(305) 555-0100\n3055550100\n4075550101\n555-0100\nnope" } });
    expect(await screen.findByText("Valid numbers: 2 · duplicates removed: 1")).toBeInTheDocument();
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("Not valid US/Canada numbers (2):");
    expect(within(alert).getByText("555-0100")).toBeInTheDocument();
    expect(within(alert).getByText("nope")).toBeInTheDocument();
    expect(screen.getByText("2 of 2 selected")).toBeInTheDocument();
    expect(screen.getByRole("cell", { name: "+1 (407) 555-0101" })).toBeInTheDocument();
  });

  it("counts the selection, pages the list and sends the selected numbers with source 'list'", async () => {
    const user = userEvent.setup();
    const api = mockApi(routes);
    const confirm = stubConfirm(true);
    renderScreen(<ToolsPage />, { path: "/admin/tools", user: support });
    const list = Array.from({ length: 25 }, (_, i) => `305555${String(1000 + i)}`).join("\n");
    fireEvent.change(phones(), { target: { value: list } });
    expect(await screen.findByText("25 of 25 selected")).toBeInTheDocument();
    expect(screen.getByText("Page 1 of 2")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(screen.getByText("Page 2 of 2")).toBeInTheDocument();
    expect(screen.getAllByRole("row")).toHaveLength(1 + 5);
    await user.selectOptions(screen.getByLabelText("Rows per page"), "40");
    expect(screen.getAllByRole("row")).toHaveLength(1 + 25);
    await user.click(screen.getByRole("button", { name: "Select none" }));
    expect(screen.getByText("0 of 25 selected")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send (0)" })).toBeDisabled();
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551000" }));
    await user.click(screen.getByRole("checkbox", { name: "Select +13055551007" }));
    expect(screen.getByText("2 of 25 selected")).toBeInTheDocument();

    expect(screen.getByRole("checkbox", { name: "Limit characters" })).toBeDisabled();
    await user.type(screen.getByRole("textbox", { name: "Message" }), "Hi €");
    expect(screen.getByText("155 characters remaining · 1 SMS · GSM-7 with extended characters")).toBeInTheDocument();
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Send (2)" }));
    expect(confirm).toHaveBeenCalledTimes(1);
    const asked = confirm.mock.calls[0]![0]!;
    for (const part of ["Send this message to 2 people?", "ChannelSMS", "MessageHi €", "To2 numbers selected from the list", "Send to 2 people"])
      expect(asked).toContain(part);
    expect(await screen.findByText("Message sent successfully to 2 users.")).toBeInTheDocument();
    const body = api.to("/api/admin/campaigns", "POST")[0]!.body;
    expect(body).toMatchObject({ source: "list", channel: "sms", message: "Hi €", phones: ["+13055551000", "+13055551007"] });
    expect(await screen.findByText("campaign page")).toBeInTheDocument();
  });

  it("does not send when the confirm is cancelled", async () => {
    const user = userEvent.setup();
    const api = mockApi(routes);
    stubConfirm(false);
    renderScreen(<ToolsPage />, { path: "/admin/tools" });
    fireEvent.change(phones(), { target: { value: "3055550100" } });
    await user.type(screen.getByRole("textbox", { name: "Message" }), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(await screen.findByRole("button", { name: "Send (1)" }));
    expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(0);
  });

  it("sends a template by name and language; the owner may lift the SMS limit", async () => {
    const user = userEvent.setup();
    const api = mockApi(routes);
    const confirm = stubConfirm(true);
    renderScreen(<ToolsPage />, { path: "/admin/tools", user: owner });
    expect(await screen.findByText("only Olivia Owner can uncheck this")).toBeInTheDocument();
    expect(screen.getByRole("checkbox", { name: "Limit characters" })).toBeEnabled();
    fireEvent.change(phones(), { target: { value: "3055550100" } });
    await user.click(screen.getByLabelText("WhatsApp"));
    await user.selectOptions(await screen.findByRole("combobox", { name: "Template" }), "t1");
    expect(screen.getByRole("textbox", { name: "Preview" })).toHaveValue("Regístrate.");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Send (1)" }));
    await waitFor(() => expect(api.to("/api/admin/campaigns", "POST")).toHaveLength(1));
    // One recipient: the dialog says so in the singular, and names the template instead of a text.
    const asked = confirm.mock.calls[0]![0]!;
    for (const part of ["Send this message to 1 person?", "ChannelWhatsApp", "Template", "To1 number selected from the list", "Send to 1 person"])
      expect(asked).toContain(part);
    expect(asked).not.toContain("Message");
    expect(api.to("/api/admin/campaigns", "POST")[0]!.body).toMatchObject({
      channel: "whatsapp",
      template: { name: "friend_invite", language: "es_MX" },
      phones: ["+13055550100"],
    });
  });

  it("shows the server's error", async () => {
    const user = userEvent.setup();
    mockApi([
      {
        method: "POST",
        path: "/api/admin/campaigns",
        reply: () => ({ status: 400, body: { error: { code: "validation_failed", message: "Too many numbers" } } }),
      },
      ...routes,
    ]);
    stubConfirm(true);
    renderScreen(<ToolsPage />, { path: "/admin/tools" });
    fireEvent.change(phones(), { target: { value: "3055550100" } });
    await user.type(screen.getByRole("textbox", { name: "Message" }), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(await screen.findByRole("button", { name: "Send (1)" }));
    expect(await screen.findByText("Too many numbers")).toBeInTheDocument();
    expect(phones()).toHaveValue("3055550100");
  });
});
