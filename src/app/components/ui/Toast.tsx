import { type ReactNode, useRef, useSyncExternalStore } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";
import "./Toast.css";

/**
 * Toasts: `toast.success(…)` from anywhere (a screen, a send helper), shown by the one <Toaster />
 * the root route mounts (inside the router, so a toast may hold a <Link>). A module-level store
 * rather than a context, so code outside components (like a send helper that awaits a request) can
 * raise and dismiss them too. A toast is never the only way to an action or a result: what it
 * links to is reachable from its page too.
 */

/** docs/product.md, constants: success and error toasts stay 5000 ms. */
export const TOAST_DURATION_MS = 5000;

export type ToastKind = "success" | "error" | "info" | "loading";
type ToastItem = { id: number; kind: ToastKind; message: ReactNode };

let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
/** Each timed toast's timer, when it is due, and the time it has left while paused. */
const timers = new Map<number, { timer?: ReturnType<typeof setTimeout>; dueAt: number; left: number }>();
let paused = false;

function emit(next: ToastItem[]) {
  items = next;
  for (const listener of listeners) listener();
}

function dismiss(id: number) {
  clearTimeout(timers.get(id)?.timer);
  timers.delete(id);
  if (items.some((toast) => toast.id === id)) emit(items.filter((toast) => toast.id !== id));
}

function startTimer(id: number, ms: number) {
  timers.set(id, { timer: setTimeout(() => dismiss(id), ms), dueAt: Date.now() + ms, left: ms });
}

/** Shows a toast and returns its id; `loading` toasts stay until dismissed. */
function show(kind: ToastKind, message: ReactNode, durationMs = TOAST_DURATION_MS): number {
  const id = nextId++;
  emit([...items, { id, kind, message }]);
  if (kind !== "loading") {
    if (paused) timers.set(id, { dueAt: 0, left: durationMs });
    else startTimer(id, durationMs);
  }
  return id;
}

/**
 * While the pointer is over the toasts or focus is inside them, no toast times out (WCAG 2.2.1):
 * each keeps the time it had left and gets it back on resume.
 */
function pause() {
  if (paused) return;
  paused = true;
  const now = Date.now();
  for (const entry of timers.values()) {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.left = Math.max(0, entry.dueAt - now);
  }
}

function resume() {
  if (!paused) return;
  paused = false;
  for (const [id, entry] of timers) startTimer(id, entry.left);
}

export const toast = {
  show,
  dismiss,
  success: (message: ReactNode, durationMs?: number) => show("success", message, durationMs),
  error: (message: ReactNode, durationMs?: number) => show("error", message, durationMs),
  info: (message: ReactNode, durationMs?: number) => show("info", message, durationMs),
  loading: (message: ReactNode) => show("loading", message),
  pause,
  resume,
  /** Removes every toast (sign-out, tests). */
  clear: () => {
    for (const entry of timers.values()) clearTimeout(entry.timer);
    timers.clear();
    paused = false;
    emit([]);
  },
};

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const snapshot = () => items;

/** Mount once (the root route in router.tsx): the region that shows the toasts. */
export function Toaster() {
  const { t } = useTranslation();
  const closeLabel = t("close");
  const list = useSyncExternalStore(subscribe, snapshot, snapshot);
  const hovered = useRef(false);
  const focused = useRef(false);
  const update = () => (hovered.current || focused.current ? pause() : resume());
  return (
    <section
      className="toaster"
      aria-label={t("toasts")}
      onMouseEnter={() => {
        hovered.current = true;
        update();
      }}
      onMouseLeave={() => {
        hovered.current = false;
        update();
      }}
      onFocus={() => {
        focused.current = true;
        update();
      }}
      onBlur={(event) => {
        if (event.currentTarget.contains(event.relatedTarget as Node | null)) return;
        focused.current = false;
        update();
      }}
    >
      {list.map((item) => (
        <div key={item.id} className={`toast toast-${item.kind}`} role={item.kind === "error" ? "alert" : "status"}>
          {item.kind === "loading" ? <span className="spinner spinner-small" aria-hidden="true" /> : <Icon name={ICONS[item.kind]} className="toast-icon" />}
          <span className="toast-message">{item.message}</span>
          {item.kind !== "loading" && (
            <button type="button" className="icon-button toast-close" aria-label={closeLabel} onClick={() => dismiss(item.id)}>
              <Icon name="x" />
            </button>
          )}
        </div>
      ))}
    </section>
  );
}

const ICONS = { success: "circle-check", error: "circle-alert", info: "info" } as const;
