import { type ReactNode, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";

/**
 * The box every table sits in: the header row stays in view while the rows scroll (th is sticky),
 * and when the table is wider than the screen, shadows mark the hidden side and a line of words
 * says to scroll sideways. A box that scrolls can be focused and scrolled with the arrow keys.
 */
export function TableScroll({ label, busy, children }: { label?: ReactNode; busy?: boolean; children: ReactNode }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState({ left: false, right: false });

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => {
      const left = element.scrollLeft > 1;
      const right = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
      setEdges((current) => (current.left === left && current.right === right ? current : { left, right }));
    };
    element.addEventListener("scroll", measure, { passive: true });
    // The observer's first call comes with the browser's next layout; measuring here instead would
    // force a layout of the whole page in the middle of React's commit (on the landing page, the
    // hydration of its preview: a long task on a slow phone).
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    if (!observer) measure();
    observer?.observe(element);
    if (element.firstElementChild) observer?.observe(element.firstElementChild);
    return () => {
      element.removeEventListener("scroll", measure);
      observer?.disconnect();
    };
  }, []);

  const scrolls = edges.left || edges.right;
  return (
    <div className="table-scroll">
      {scrolls && (
        <p className="table-scroll-cue" aria-hidden="true">
          <Icon name="move-horizontal" />
          {t("table.scrollCue")}
        </p>
      )}
      <div className="table-scroll-frame" data-more-left={edges.left || undefined} data-more-right={edges.right || undefined}>
        {/* While a page loads the rows keep their colours (faded text would fall below AA contrast); a bar moves along the top. */}
        {busy && <div className="table-busy-bar" aria-hidden="true" />}
        <div
          ref={box}
          className="table-wrap data-table-wrap"
          aria-busy={busy || undefined}
          // A box that scrolls must be reachable by keyboard (WCAG 2.1.1): then it is a named, focusable region.
          {...(scrolls ? { tabIndex: 0, role: "region", "aria-label": typeof label === "string" ? label : t("table.scrollCue") } : {})}
        >
          {children}
        </div>
      </div>
    </div>
  );
}
