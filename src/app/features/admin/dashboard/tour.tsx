import type { ProviderProps, StepType } from "@reactour/tour";
import type { TFunction } from "i18next";

/** The dashboard's guided tour (docs/admin.md): three steps, shown on the first visit, reopenable. */
export const TOUR_SEEN_KEY = "bp.adminTour.seen";

export function tourSteps(t: TFunction): StepType[] {
  return [
    { selector: '[data-tour="live"]', content: t("tour.steps.live"), navDotAriaLabel: t("tour.dot", { n: 1 }) },
    { selector: '[data-tour="database"]', content: t("tour.steps.database"), navDotAriaLabel: t("tour.dot", { n: 2 }) },
    { selector: '[data-tour="paid"]', content: t("tour.steps.paid"), navDotAriaLabel: t("tour.dot", { n: 3 }) },
  ];
}

/**
 * The tour's look and behaviour: popover at most 353 px wide, 10 px of padding around what it
 * points at, dots, previous/next, arrow keys and Esc (the library's keyboard handling), and a
 * click on the mask closes it (the library's default).
 */
export function tourOptions(t: TFunction): Omit<ProviderProps, "children" | "steps"> {
  return {
    padding: 10,
    className: "tour-popover",
    maskClassName: "tour-mask",
    showDots: true,
    showBadge: true,
    showCloseButton: true,
    showPrevNextButtons: true,
    scrollSmooth: true,
    accessibilityOptions: { closeButtonAriaLabel: t("tour.close"), showNavigationScreenReaders: true },
    // The library's own buttons are labelled in English only.
    prevButton: ({ currentStep, setCurrentStep }) => (
      <button
        type="button"
        className="tour-step-button"
        aria-label={t("tour.prev")}
        disabled={currentStep === 0}
        onClick={() => setCurrentStep(Math.max(0, currentStep - 1))}
      >
        <span aria-hidden="true">←</span>
      </button>
    ),
    nextButton: ({ currentStep, stepsLength, setCurrentStep }) => (
      <button
        type="button"
        className="tour-step-button"
        aria-label={t("tour.next")}
        disabled={currentStep >= stepsLength - 1}
        onClick={() => setCurrentStep(Math.min(stepsLength - 1, currentStep + 1))}
      >
        <span aria-hidden="true">→</span>
      </button>
    ),
    styles: {
      popover: (base) => ({ ...base, maxWidth: 353, borderRadius: 10, color: "var(--text)" }),
      maskArea: (base) => ({ ...base, rx: 10 }),
      badge: (base) => ({ ...base, background: "var(--brand)" }),
      // A 10 px dot inside a 24 px target (WCAG 2.2 target size): the padding is clickable, the background stops at the content.
      dot: (base, state) => ({
        ...base,
        width: 24,
        height: 24,
        margin: 0,
        padding: 7,
        border: "none",
        backgroundClip: "content-box",
        background: state?.current ? "var(--brand)" : "var(--color-border-control)",
      }),
    },
  };
}

export function tourSeen(): boolean {
  try {
    return localStorage.getItem(TOUR_SEEN_KEY) === "1";
  } catch {
    return true;
  }
}

export function markTourSeen() {
  try {
    localStorage.setItem(TOUR_SEEN_KEY, "1");
  } catch {
    // Private mode: the tour may show again next time.
  }
}
