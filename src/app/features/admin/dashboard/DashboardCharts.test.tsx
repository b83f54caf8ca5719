import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { DashboardSeries } from "../../../../shared/admin-dashboard";
import { setLanguage } from "../../../i18n";
import "../../../i18n/admin-dashboard";
import { drawn } from "../../../test/fake-uplot";

vi.mock("uplot", () => import("../../../test/fake-uplot"));

const { default: DashboardCharts } = await import("./DashboardCharts");

const series: DashboardSeries = {
  timeZone: "America/New_York",
  days: ["2031-03-09", "2031-03-10"],
  signups: [1, 2],
  payments: [0, 3],
  revenueCents: [0, 11_997],
  blocksWon: [3, 4],
  messagesSent: [5, 6],
  messagesFailed: [0, 1],
};

beforeEach(async () => {
  drawn.length = 0;
  await setLanguage("en");
});

describe("dashboard charts", () => {
  it("draws sign-ups, payments with revenue, blocks won and messages, one point per day", async () => {
    render(<DashboardCharts series={series} />);
    // Each is drawn once near the screen, in a task of its own.
    await waitFor(() => expect(drawn.map((d) => d.labels)).toEqual([["Sign-ups"], ["Payments", "Revenue"], ["Blocks won"], ["Sent", "Failed"]]));
    // x: noon UTC of each day, in seconds; then the values.
    expect(drawn[1]!.data).toEqual([
      [Date.parse("2031-03-09T12:00:00Z") / 1000, Date.parse("2031-03-10T12:00:00Z") / 1000],
      [0, 3],
      [0, 11_997],
    ]);
    expect(screen.getByRole("img", { name: "Payments: 3 in total over 2 days. Revenue: $119.97 in total over 2 days" })).toBeInTheDocument();
  });

  it("gives each chart's numbers as a table", async () => {
    render(<DashboardCharts series={series} />);
    const figure = screen.getByText("Messages", { selector: "figcaption" }).closest("figure")!;
    await userEvent.setup().click(within(figure).getByText("Show as a table"));
    const rows = within(figure).getAllByRole("row");
    expect(rows.map((r) => r.textContent)).toEqual(["DaySentFailed", "09/03/3150", "10/03/3161"]);
  });
});
