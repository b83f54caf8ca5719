import { type RefObject, useEffect, useState } from "react";

/**
 * Whether the element has come within `margin` of the viewport; once it has, it stays true. Parts
 * below the fold (a chart, the what-if) wait for it before they load and draw, so a phone's first
 * screen is not held up by work nobody sees yet. Without IntersectionObserver, everything is in view.
 */
export function useInView(ref: RefObject<Element | null>, margin = "300px"): boolean {
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === "undefined");
  useEffect(() => {
    const el = ref.current;
    if (seen || !el) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        setSeen(true);
      },
      { rootMargin: margin },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, margin, seen]);
  return seen;
}
