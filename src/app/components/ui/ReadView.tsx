import type { ReactNode } from "react";
import { StatusView } from "./StatusView";

type Read<T> = { data?: T; error?: unknown; mutate: () => unknown };

/**
 * A read's states, written once: its error with "Try again" (only while nothing was loaded: a
 * failed revalidation keeps showing the last data), loading, or `children` with the data. `read`
 * is an SWR response.
 */
export function ReadView<T>({ read, error, compact, children }: { read: Read<T>; error: ReactNode; compact?: boolean; children: (data: T) => ReactNode }) {
  if (read.error && read.data === undefined) return <StatusView kind="error" message={error} onRetry={() => void read.mutate()} compact={compact} />;
  if (read.data === undefined) return <StatusView kind="loading" compact={compact} />;
  return children(read.data);
}
