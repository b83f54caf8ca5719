import { MESSAGE_STATUSES, type MessageStatus } from "../../shared/campaigns";

/**
 * A campaign message's states and the events that move it between them: the one table the message
 * ledger's writers (./message-ledger.ts, ./message-receipts.ts) take their WHERE from. A writer moves
 * a row only from the statuses its event names; any other row it leaves as it is (the statement
 * changes nothing). `when` is the further condition a writer adds to the status.
 */
export type MessageEvent = keyof typeof MESSAGE_TRANSITIONS;
type Transition = { from: readonly MessageStatus[]; to: readonly MessageStatus[]; when?: string };

export const MESSAGE_TRANSITIONS = {
  /** Dispatch takes the row to send it, with a lease. */
  claim: { from: ["pending", "deferred", "sending"], to: ["sending"], when: "a 'sending' row only once its lease or hold is over" },
  /** A send that got no answer (time-out, dropped connection), or a lookup that failed: the row stays claimed until its hold ends. */
  hold: { from: ["sending"], to: ["sending"] },
  /** The provider took the message. */
  sent: { from: ["sending"], to: ["sent"] },
  /** A delivery receipt kept because it beat its send, applied as the send is recorded. */
  earlyReceipt: { from: ["sent"], to: ["delivered", "failed"], when: "a receipt kept for the row's provider id" },
  /** A transient failure (429, 5xx) or a fault of ours: the row is handed back for the job's retry. */
  retry: { from: ["sending"], to: ["pending"] },
  /** The provider refused the message for good. */
  failed: { from: ["sending"], to: ["failed"] },
  /** A WhatsApp claim that ran out with nothing recorded: WhatsApp cannot be asked, so it is not sent again. */
  inDoubt: { from: ["sending"], to: ["failed"], when: "no hold" },
  /** The number opted out, or a marketing rule (consent, cap) left it out at send time. */
  skipped: { from: ["pending", "deferred", "sending"], to: ["skipped"] },
  /** Marketing outside the recipient's allowed hours. */
  deferred: { from: ["pending", "deferred", "sending"], to: ["deferred"] },
  /** The queue gave up on the message. */
  deadLettered: { from: ["pending", "deferred", "sending"], to: ["failed"] },
  /** The expansion died before queueing the row. */
  expansionFailed: { from: ["pending"], to: ["failed"], when: "past the campaign's dispatch cursor" },
  /** A status callback naming its row (or a lookup that found the message) settles a send in doubt. */
  callback: { from: ["sending", "failed"], to: ["sent", "delivered", "failed"], when: "a 'failed' row only when it failed in doubt" },
  /** A delivery receipt for a sent message. */
  receipt: { from: ["sent"], to: ["delivered", "failed"] },
  /** The recipient's account was erased: what was not sent is not sent. */
  erased: { from: ["pending", "deferred"], to: ["skipped"] },
  /** The cron sweep queues a row's job again (a row in doubt, a pending row whose job is gone, an overdue deferred one). */
  requeue: { from: ["pending", "deferred", "sending"], to: ["pending", "deferred", "sending"], when: "the status stays as it is" },
  /** "Retry failed" takes a failed row into a new campaign (or erasure closes it to retries). */
  retryTaken: { from: ["failed"], to: ["failed"] },
} as const satisfies Record<string, Transition>;

/** The statuses an event may move a row from: a writer's WHERE. */
export const fromOf = <E extends MessageEvent>(event: E): (typeof MESSAGE_TRANSITIONS)[E]["from"] => MESSAGE_TRANSITIONS[event].from;

/** Whether the table lets `event` move a row from `from` to `to`. */
export function allows(event: MessageEvent, from: MessageStatus, to: MessageStatus): boolean {
  const t: Transition = MESSAGE_TRANSITIONS[event];
  if (!t.from.includes(from) || !t.to.includes(to)) return false;
  // The sweep's stamp changes no status.
  return event === "requeue" ? from === to : true;
}

/** Every (from, to) pair some event allows. */
export const ALLOWED_PAIRS: ReadonlySet<`${MessageStatus}>${MessageStatus}`> = new Set(
  MESSAGE_STATUSES.flatMap((from) =>
    MESSAGE_STATUSES.filter((to) => (Object.keys(MESSAGE_TRANSITIONS) as MessageEvent[]).some((e) => allows(e, from, to))).map(
      (to) => `${from}>${to}` as const,
    ),
  ),
);
