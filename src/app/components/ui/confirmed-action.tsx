import type { ReactNode } from "react";
import { toast } from "./Toast";

type Steps<T> = {
  /**
   * The question; cancelling runs nothing. Words are asked with window.confirm; a function asks
   * its own way (a `useConfirm` dialog: `() => confirm({ title, … })`) and resolves to the answer.
   */
  confirm: string | (() => Promise<boolean>);
  /** What the loading toast says while the action runs (it is dismissed however the action ends). */
  loading: ReactNode;
  run: () => Promise<T>;
  success: (result: T) => ReactNode;
  failure: (error: unknown) => ReactNode;
};

/**
 * The flow every consequential action follows: confirm, a loading toast, then the result or the
 * error as a toast. Resolves to the result, or null when cancelled or failed.
 */
export async function confirmedAction<T>({ confirm, loading, run, success, failure }: Steps<T>): Promise<T | null> {
  const confirmed = typeof confirm === "string" ? window.confirm(confirm) : await confirm();
  if (!confirmed) return null;
  const pending = toast.loading(loading);
  try {
    const result = await run();
    toast.success(success(result));
    return result;
  } catch (err) {
    toast.error(failure(err));
    return null;
  } finally {
    toast.dismiss(pending);
  }
}
