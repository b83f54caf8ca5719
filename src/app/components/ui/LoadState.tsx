import type { ReactNode } from "react";

type Props = {
  /** The read failed and nothing is shown yet: the error with a retry. */
  failed: boolean;
  /** Nothing to show yet: the loading state. */
  loading: boolean;
  onRetry: () => void;
  labels: { error: string; loading: string; retry: string };
  children: ReactNode;
};

/** A read's states, the same on every page: its error with a retry, loading, or its content. */
export function LoadState({ failed, loading, onRetry, labels, children }: Props) {
  if (failed) {
    return (
      <div className="alert" role="alert">
        <p>{labels.error}</p>
        <button type="button" className="button button-secondary" onClick={onRetry}>
          {labels.retry}
        </button>
      </div>
    );
  }
  if (loading) {
    return (
      <div className="loading-block" role="status">
        <span className="spinner" aria-hidden="true" />
        <span>{labels.loading}</span>
      </div>
    );
  }
  return <>{children}</>;
}

/** The states of an SWR read: failed only while there is nothing older to show. */
export function readState(read: { data?: unknown; error?: unknown }): { failed: boolean; loading: boolean } {
  return { failed: Boolean(read.error) && read.data === undefined, loading: read.data === undefined };
}
