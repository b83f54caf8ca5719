import { deliverNotification } from "../notifications/deliver";
import type { JobHandlers } from "../queue";
import { dispatchMessage } from "./dispatch";
import { expandCampaign } from "./expand";

/** Queue job handlers by kind (src/worker/queue.ts parses, acks and retries). */
export const jobHandlers: JobHandlers = {
  expand: expandCampaign,
  dispatch: dispatchMessage,
  notify: deliverNotification,
};
