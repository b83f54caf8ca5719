import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import type { User } from "../../lib/session";
import { mockApi, type Route, renderScreen } from "../../test/admin-harness";
import SettingsPage from "./SettingsPage";

const driver = { name: "Dana Driver", isAdmin: false, app: "flex", email: null, accountConnected: true, setupComplete: false } as Partial<User>;

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

type Station = { id: string; name: string; code: string | null; group: string; timeZone: string | null; zoneSource: string | null };
const doral: Station = { id: "s-doral", name: "Doral (DMI4)", code: "DMI4", group: "Miami, FL", timeZone: "America/New_York", zoneSource: "catalogue" };
const hialeah: Station = { id: "s-hialeah", name: "Hialeah (DMI7)", code: "DMI7", group: "Miami, FL", timeZone: "America/New_York", zoneSource: "driver_area" };
const unknown: Station = { id: "s-new", name: "New Depot", code: null, group: "Other", timeZone: null, zoneSource: null };
const zoneChoices = ["America/Chicago", "America/New_York"];

/** The settings' API; a zone saved or reset is kept, as the Worker keeps the driver's own correction. */
function settingsApi(list: Station[], extra: Route[] = []) {
  const byId = new Map(list.map((s) => [s.id, { ...s }]));
  return mockApi([
    { path: "/api/driver/stations", reply: () => ({ body: { app: "flex", stations: [...byId.values()], zoneChoices } }) },
    { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
    ...extra,
    {
      method: "PUT",
      path: /^\/api\/driver\/stations\/[^/]+\/time-zone$/,
      reply: (call) => {
        const station = byId.get(decodeURIComponent(call.url.pathname.split("/")[4]!))!;
        Object.assign(station, { timeZone: (call.body as { timeZone: string }).timeZone, zoneSource: "driver" });
        return { body: { station } };
      },
    },
    {
      method: "DELETE",
      path: /^\/api\/driver\/stations\/[^/]+\/time-zone$/,
      reply: (call) => {
        const id = decodeURIComponent(call.url.pathname.split("/")[4]!);
        const station = byId.get(id)!;
        Object.assign(station, { timeZone: list.find((s) => s.id === id)!.timeZone, zoneSource: list.find((s) => s.id === id)!.zoneSource });
        return { body: { station } };
      },
    },
    { method: "PUT", path: "/api/driver/filters", reply: (call) => ({ body: { filters: call.body, setupComplete: true } }) },
  ]);
}

describe("stations in the settings", () => {
  it("lists every station by its name, grouped by city, each with its time zone in words", async () => {
    settingsApi([doral, unknown, hialeah]);
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    const miami = await screen.findByRole("group", { name: /Miami, FL/ });
    expect(
      within(miami)
        .getAllByRole("checkbox")
        .map((c) => c.parentElement?.textContent?.trim()),
    ).toEqual(["Doral (DMI4)", "Hialeah (DMI7)"]);
    expect(within(screen.getByRole("group", { name: /Other/ })).getByLabelText("New Depot")).toBeInTheDocument();
    expect(screen.getAllByRole("checkbox")).toHaveLength(3);
    expect(within(miami).getByText("Time zone: Eastern Time (New York)")).toBeInTheDocument();
    expect(within(miami).getByText(/Eastern Time \(New York\) \(from your phone's area code\)/)).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await within(miami).findByText("Zona horaria: hora oriental (New York)")).toBeInTheDocument();
    expect(screen.getByLabelText("Zona horaria de New Depot")).toBeInTheDocument();
  });

  it("a station with no known zone asks for one before the filters can be saved, from the Worker's choices", async () => {
    const api = settingsApi([doral, unknown]);
    const router = renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    const zone = await screen.findByLabelText("Time zone of New Depot");
    expect(
      within(zone)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["Choose a time zone", "Central Time (Chicago)", "Eastern Time (New York)"]);
    await userEvent.click(screen.getByLabelText("New Depot"));
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    expect(await screen.findByText("Choose the time zone of each station you picked")).toBeInTheDocument();
    expect(zone).toHaveAttribute("aria-invalid", "true");
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    await userEvent.selectOptions(zone, "America/Chicago");
    await userEvent.click(screen.getByRole("button", { name: "Save time zone" }));
    await waitFor(() => expect(api.to("/api/driver/stations/s-new/time-zone", "PUT")[0]?.body).toEqual({ timeZone: "America/Chicago" }));
    expect(await screen.findByText(/Time zone: Central Time \(Chicago\) \(your choice\)/)).toBeInTheDocument();
    expect(screen.queryByText("Choose the time zone of each station you picked")).toBeNull();

    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/dashboard"));
    expect(api.to("/api/driver/filters", "PUT")[0]?.body).toMatchObject({ stations: [{ id: "s-new" }] });
  });

  it("corrects a station's zone and puts it back to the default; the station's own minimums still go with it", async () => {
    const api = settingsApi([doral]);
    const router = renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    await userEvent.click(await screen.findByRole("button", { name: "Change the time zone of Doral (DMI4)" }));
    await userEvent.selectOptions(screen.getByLabelText("Time zone of Doral (DMI4)"), "America/Chicago");
    await userEvent.click(screen.getByRole("button", { name: "Save time zone" }));
    expect(await screen.findByText(/Time zone: Central Time \(Chicago\) \(your choice\)/)).toBeInTheDocument();
    expect(api.to("/api/driver/stations/s-doral/time-zone", "PUT")[0]?.body).toEqual({ timeZone: "America/Chicago" });

    await userEvent.click(screen.getByRole("button", { name: "Change the time zone of Doral (DMI4)" }));
    await userEvent.click(screen.getByRole("button", { name: "Use the default" }));
    expect(await screen.findByText("Time zone: Eastern Time (New York)")).toBeInTheDocument();
    expect(api.to("/api/driver/stations/s-doral/time-zone", "DELETE")).toHaveLength(1);

    await userEvent.click(screen.getByLabelText("Doral (DMI4)"));
    await userEvent.type(screen.getByLabelText("Min. pay ($) (optional)"), "90");
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/dashboard"));
    expect(api.to("/api/driver/filters", "PUT")[0]?.body).toMatchObject({ stations: [{ id: "s-doral", minPayCents: 9000, minHourlyCents: null }] });
  });

  it("a zone the Worker refuses (unknown_zone) is said in the screen's words, in both languages", async () => {
    settingsApi(
      [unknown],
      [
        {
          method: "PUT",
          path: "/api/driver/stations/s-new/time-zone",
          reply: () => ({
            status: 400,
            body: { error: { code: "validation_failed", message: "timeZone: unknown_zone", details: [{ path: "timeZone", message: "unknown_zone" }] } },
          }),
        },
      ],
    );
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    await userEvent.selectOptions(await screen.findByLabelText("Time zone of New Depot"), "America/Chicago");
    await userEvent.click(screen.getByRole("button", { name: "Save time zone" }));
    expect(await screen.findByText("Choose one of the time zones listed")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await screen.findByText("Elige una de las zonas horarias de la lista")).toBeInTheDocument();
  });

  it("says so when the Worker still finds a station without a zone (zone_needed), in English and Spanish", async () => {
    settingsApi(
      [doral],
      [
        {
          method: "PUT",
          path: "/api/driver/filters",
          reply: () => ({
            status: 422,
            body: { error: { code: "validation_failed", message: "stations: zone_needed", details: [{ path: "stations", message: "zone_needed" }] } },
          }),
        },
      ],
    );
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    await userEvent.click(await screen.findByLabelText("Doral (DMI4)"));
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Choose the time zone of each station you picked");
    await act(() => setLanguage("es"));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Elige la zona horaria de cada estación que marcaste"));
  });
});
