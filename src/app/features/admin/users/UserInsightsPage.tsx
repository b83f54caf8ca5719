import type { ComponentType } from "react";
import { ActingFor } from "./ActingFor";

/** The driver's insights (features/driver, DriverInsights), handed in by the route table: features never import each other. */
export type DriverInsightsView = ComponentType<{ driverId: number; readOnly: boolean }>;

/**
 * /admin/users/:id/insights: the driver's insights as the driver sees them, for support ("acting
 * for", docs/admin.md). Read-only: the what-if can be tried, never applied.
 */
export default function UserInsightsPage({ Insights }: { Insights: DriverInsightsView }) {
  return <ActingFor view="insights">{(u) => <Insights driverId={u.id} readOnly />}</ActingFor>;
}
