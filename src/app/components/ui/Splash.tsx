import { Logo } from "./Logo";

/** Full-screen splash while the router or the session loads. */
export function Splash() {
  return (
    <div className="splash" role="status" aria-live="polite" aria-label="Loading">
      <Logo size={72} />
      <div className="spinner" aria-hidden="true" />
    </div>
  );
}
