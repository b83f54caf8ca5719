import type { ReactNode } from "react";
import { toast } from "./Toast";

type Steps<T> = {
  /** Asks the question (a `useConfirm` dialog: `() => confirm({ title, … })`); cancelling runs nothing. */
  confirm: () => Promise<boolean>;
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
  if (!(await confirm())) return null;
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
