import type { JobHandlers } from "../queue";
import { dispatchMessage, expandCampaign } from "./dispatch";

/** Queue job handlers by kind (src/worker/queue.ts parses, acks and retries). */
export const jobHandlers: JobHandlers = {
  expand: expandCampaign,
  dispatch: dispatchMessage,
};
