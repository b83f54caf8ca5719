import { Logo } from "./Logo";

/**
 * The loading splash: full screen while the router or the session loads; `inline` inside the
 * frame (a page waiting for its session), so the top bar stays put.
 */
export function Splash({ inline }: { inline?: boolean }) {
  return (
    <div className={inline ? "splash splash-inline" : "splash"} role="status" aria-live="polite" aria-label="Loading">
      <Logo size={72} />
      <span className="splash-name">Blockpilot</span>
      <div className="spinner" aria-hidden="true" />
    </div>
  );
}
