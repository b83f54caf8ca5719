import useSWR from "swr";
import { api } from "../../lib/api-client";

/** What the public pages show from the server's configuration (GET /api/status/site). */
export function useSiteInfo() {
  return useSWR("site-info", () => api.get<{ supportEmail: string }>("/api/status/site", { auth: false }), { revalidateOnFocus: false });
}
