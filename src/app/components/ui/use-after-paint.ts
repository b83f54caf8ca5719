import { startTransition, useEffect, useState } from "react";

/**
 * Whether the browser has painted the screen since `ready` became true: true from the task after
 * that frame on, and it stays true. A page that has much to show at once renders what is on a
 * phone's first screen, lets it paint, then renders the rest below: two shorter tasks of layout
 * instead of one long one that holds the page still. (A background tab does not paint, so the rest
 * waits until the tab is shown.)
 */
export function useAfterPaint(ready = true): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    if (!ready || painted) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      // A transition: React renders the rest in slices, yielding to the browser between them.
      timer = setTimeout(() => startTransition(() => setPainted(true)), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [ready, painted]);
  return painted;
}
