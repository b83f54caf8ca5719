import type { JobHandlers } from "../queue";

/** Queue job handlers by kind. The bulk-messaging pipeline registers `expand` and `dispatch` here. */
export const jobHandlers: JobHandlers = {};
