import { type ReactNode, useSyncExternalStore } from "react";
import { useTranslation } from "react-i18next";
import "./Toast.css";
import "../../i18n/auth";

/**
 * Toasts: `toast.success(…)` from anywhere (a screen, a send helper), shown by the one <Toaster />
 * the root route mounts (inside the router, so a toast may hold a <Link>). A module-level store rather than a context, so code outside components
 * (like a send helper that awaits a request) can raise and dismiss them too.
 */

/** Spec §9: success and error toasts stay 5000 ms. */
export const TOAST_DURATION_MS = 5000;

export type ToastKind = "success" | "error" | "info" | "loading";
type ToastItem = { id: number; kind: ToastKind; message: ReactNode };

let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const timers = new Map<number, ReturnType<typeof setTimeout>>();

function emit(next: ToastItem[]) {
  items = next;
  for (const listener of listeners) listener();
}

function dismiss(id: number) {
  clearTimeout(timers.get(id));
  timers.delete(id);
  if (items.some((toast) => toast.id === id)) emit(items.filter((toast) => toast.id !== id));
}

/** Shows a toast and returns its id; `loading` toasts stay until dismissed. */
function show(kind: ToastKind, message: ReactNode, durationMs = TOAST_DURATION_MS): number {
  const id = nextId++;
  emit([...items, { id, kind, message }]);
  if (kind !== "loading")
    timers.set(
      id,
      setTimeout(() => dismiss(id), durationMs),
    );
  return id;
}

export const toast = {
  show,
  dismiss,
  success: (message: ReactNode, durationMs?: number) => show("success", message, durationMs),
  error: (message: ReactNode, durationMs?: number) => show("error", message, durationMs),
  info: (message: ReactNode, durationMs?: number) => show("info", message, durationMs),
  loading: (message: ReactNode) => show("loading", message),
  /** Removes every toast (sign-out, tests). */
  clear: () => {
    for (const id of timers.keys()) clearTimeout(timers.get(id));
    timers.clear();
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
  const closeLabel = t("auth:toast.close");
  const list = useSyncExternalStore(subscribe, snapshot, snapshot);
  return (
    <div className="toaster">
      {list.map((item) => (
        <div key={item.id} className={`toast toast-${item.kind}`} role={item.kind === "error" ? "alert" : "status"}>
          {item.kind === "loading" && <span className="spinner spinner-small" aria-hidden="true" />}
          <span className="toast-message">{item.message}</span>
          {item.kind !== "loading" && (
            <button type="button" className="toast-close" aria-label={closeLabel} onClick={() => dismiss(item.id)}>
              ×
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
