import useSWR from "swr";
import { publicApi, unwrap } from "../../lib/api-client";

/** What the public pages show from the server's configuration (GET /api/status/site). */
export function useSiteInfo() {
  return useSWR("site-info", () => unwrap(publicApi.status.site.$get()), { revalidateOnFocus: false });
}
