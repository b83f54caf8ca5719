import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { setLanguage } from "../../i18n";
import { mockApi, renderScreen } from "../../test/admin-harness";
import { driver, resetEachTest } from "../../test/driver-screens";
import CalendarPage from "./CalendarPage";
import { fromFormValues, toFormValues } from "./filters-form";
import SettingsPage from "./SettingsPage";

resetEachTest();

const stations = [
  { id: "DLA7", name: "Hawthorne (DLA7)", code: "DLA7", group: "Los Angeles, CA", timeZone: "America/Los_Angeles", zoneSource: "catalogue" },
  { id: "DAX5", name: "Irvine (DAX5)", code: "DAX5", group: "Los Angeles, CA", timeZone: "America/Los_Angeles", zoneSource: "catalogue" },
  { id: "DCH1", name: "Chicago (DCH1)", code: "DCH1", group: "Chicago, IL", timeZone: "America/Chicago", zoneSource: "catalogue" },
];

describe("filters", () => {
  it("turn dollars and hours into cents and minutes, and schema codes into the form's fields", () => {
    const values = toFormValues(stations, null);
    values.stations[2]!.selected = true;
    values.stations[2]!.minPay = "70.5";
    values.minHourly = "25";
    values.minHours = "2.5";
    const ok = fromFormValues(values);
    expect(ok.filters).toMatchObject({ stations: [{ id: "DCH1", minPayCents: 7050, minHourlyCents: null }], minHourlyCents: 2500, minDurationMinutes: 150 });
    values.stations[2]!.minHourly = "abc";
    values.maxHours = "1";
    values.schedule.mon = [{ start: "", end: "10:00" }];
    expect(fromFormValues(values).errors).toEqual({
      "stations.2.minHourly": "driver:errors.number",
      maxHours: "driver:errors.min_above_max",
      "schedule.mon.0": "driver:errors.clock",
    });
  });

  it("the page groups stations by city, refuses an empty set without calling the server, then saves", async () => {
    const api = mockApi([
      { path: "/api/driver/stations", reply: () => ({ body: { app: "flex", stations, zoneChoices: [] } }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
      { method: "PUT", path: "/api/driver/filters", reply: (call) => ({ body: { filters: call.body, setupComplete: true } }) },
    ]);
    const router = renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    const la = await screen.findByRole("group", { name: /Los Angeles, CA/ });
    expect(within(la).getAllByRole("checkbox")).toHaveLength(2);
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    expect(await screen.findByText("Pick at least one station")).toBeInTheDocument();
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    await userEvent.click(screen.getByLabelText("Chicago (DCH1)"));
    await userEvent.type(screen.getAllByLabelText(/Min. pay/)[0]!, "80");
    await userEvent.clear(screen.getByLabelText("Minimum $/hour"));
    await userEvent.type(screen.getByLabelText("Minimum $/hour"), "22.50");
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/dashboard"));
    const sent = api.to("/api/driver/filters", "PUT")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ stations: [{ id: "DCH1", minPayCents: 8000 }], minHourlyCents: 2250, arrivalBufferMinutes: 30 });
    expect(Object.keys(sent.schedule as object)).toHaveLength(7);
  });

  it("says how long to wait when the stations cannot be read yet (429), in English and Spanish", async () => {
    mockApi([
      {
        path: "/api/driver/stations",
        reply: () => ({
          status: 429,
          body: {
            error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 1790 } },
          },
        }),
      },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
    ]);
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 30 minutes.");
    await act(() => setLanguage("es"));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 30 minutos."));
  });

  it("says it could not load when the platform does not answer", async () => {
    mockApi([
      { path: "/api/driver/stations", reply: () => ({ status: 503, body: { error: { code: "unavailable", message: "down" } } }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
    ]);
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't configure schedule");
  });
});

describe("calendar", () => {
  const week = "2031-05-12";
  const block = {
    id: 9,
    stationId: "DLA7",
    stationName: "DLA7 Hawthorne",
    timeZone: "America/Los_Angeles",
    // Wednesday 22:00 in Los Angeles is already Thursday in UTC: it belongs on Wednesday.
    startsAt: Date.parse("2031-05-14T22:00:00-07:00"),
    endsAt: Date.parse("2031-05-15T01:00:00-07:00"),
    payCents: 9000,
    arrivedAt: null,
  };
  const calendar = {
    driver: { name: "Dana Driver", phoneNumber: "+13055550123", app: "flex" },
    week,
    schedule: { wed: [{ start: "20:00", end: "02:00" }] },
    stations: [{ id: "DLA7", name: "DLA7 Hawthorne", region: "Los Angeles", timeZone: "America/Los_Angeles" }],
    blocks: [block],
  };

  it("puts blocks on their station-local day and forfeits after a confirm", async () => {
    const api = mockApi([
      { path: "/api/driver/calendar", reply: () => ({ body: calendar }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
      { method: "POST", path: "/api/driver/offers/9/forfeit", reply: () => ({ body: { id: 9, forfeitedAt: Date.now() } }) },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar?week=${week}`, route: "/flex/calendar" });
    const wednesday = await screen.findByRole("region", { name: /Wednesday/ });
    expect(within(wednesday).getByText("20:00–02:00")).toBeInTheDocument();
    expect(within(wednesday).getByText("DLA7 Hawthorne")).toBeInTheDocument();
    expect(within(screen.getByRole("region", { name: /Thursday/ })).getByText("No blocks")).toBeInTheDocument();
    await userEvent.click(within(wednesday).getByRole("button", { name: "Forfeit" }));
    await userEvent.click(await screen.findByRole("button", { name: "Forfeit block" }));
    await waitFor(() => expect(api.to("/api/driver/offers/9/forfeit", "POST")).toHaveLength(1));
    expect(await screen.findByText("Block forfeited")).toBeInTheDocument();
    await waitFor(() => expect(api.to("/api/driver/calendar").length).toBeGreaterThan(1));
  });

  it("edits the week's windows as the settings form checks them, keeping the rest of the filters", async () => {
    const saved = {
      stations: [{ id: "DLA7", minPayCents: 7000 }],
      minPayCents: 5000,
      minHourlyCents: 2000,
      arrivalBufferMinutes: 30,
      minDurationMinutes: 0,
      maxDurationMinutes: 0,
      schedule: calendar.schedule,
      dailyCapMinutes: 0,
    };
    const api = mockApi([
      { path: "/api/driver/calendar", reply: () => ({ body: calendar }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: saved } }) },
      { method: "PUT", path: "/api/driver/filters", reply: (call) => ({ body: { filters: call.body, setupComplete: true } }) },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar?week=${week}`, route: "/flex/calendar" });
    await userEvent.click(await screen.findByRole("button", { name: "Edit windows" }));
    await userEvent.click(await screen.findByRole("button", { name: "Remove window 20:00–02:00" }));
    await userEvent.click(screen.getByRole("button", { name: "Save windows" }));
    expect(await screen.findByText("Add at least one schedule window")).toBeInTheDocument();
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    const friday = screen.getByRole("group", { name: "Friday" });
    await userEvent.click(within(friday).getByRole("button", { name: "Add a window" }));
    await userEvent.clear(screen.getByLabelText("Friday To"));
    await userEvent.click(screen.getByRole("button", { name: "Save windows" }));
    expect(await screen.findByText("Use a time like 08:30")).toBeInTheDocument();
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    await userEvent.type(screen.getByLabelText("Friday To"), "12:00");
    await userEvent.click(screen.getByRole("button", { name: "Save windows" }));
    await waitFor(() => expect(api.to("/api/driver/filters", "PUT")).toHaveLength(1));
    expect(api.to("/api/driver/filters", "PUT")[0]!.body).toEqual({ ...saved, schedule: { fri: [{ start: "08:00", end: "12:00" }] } });
    expect(await screen.findByRole("button", { name: "Edit windows" })).toBeInTheDocument();
  });

  it("another driver's calendar, viewed too often (429): says how long to wait, in English and Spanish", async () => {
    const tooMany = {
      status: 429,
      body: {
        error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 7_000 } },
      },
    };
    mockApi([{ path: "/api/driver/calendar/+13055550123", reply: () => tooMany }]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar/+13055550123?week=${week}`, route: "/flex/calendar/:phoneNumber" });
    expect(await screen.findByText("Too many attempts. Try again in 2 hours.")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await screen.findByText("Demasiados intentos. Inténtalo de nuevo en 2 horas.")).toBeInTheDocument();
  });

  it("another driver's calendar is read-only, and a refusal is said", async () => {
    mockApi([
      { path: "/api/driver/calendar/+13055550123", reply: () => ({ body: calendar }) },
      {
        path: "/api/driver/calendar/+13055550999",
        reply: () => ({ status: 403, body: { error: { code: "forbidden", message: "Only an administrator or the driver's reseller may see this calendar" } } }),
      },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar/+13055550123?week=${week}`, route: "/flex/calendar/:phoneNumber" });
    expect(await screen.findByRole("heading", { name: "Calendar of Dana Driver" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Forfeit" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Edit windows/ })).toBeNull();
  });
});
