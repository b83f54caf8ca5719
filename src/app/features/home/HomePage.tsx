import { type ReactNode, startTransition, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { HydrationBoundary } from "../../boot/hydration";
import { lazyPart } from "../../boot/lazy-part";
import { useSession } from "../../lib/session";
import "./landing.css";

// Everything below the first screen loads after the first paint, with its own strings.
const LandingSections = lazyPart("landing-sections", () => import("./LandingSections"));

// One element for every render of the page: when the page re-renders (once hydrated, when the live
// session arrives) React sees the same element and leaves the sections alone. A new element would
// reach their Suspense boundary while React was still hydrating it in the background, and React
// would then hydrate all of it at once, synchronously: one long task of several hundred ms on a
// slow phone (bench/README.md, Lighthouse).
const sections = (
  <HydrationBoundary fallback={<div className="landing-sections-waiting" />}>
    <LandingSections />
  </HydrationBoundary>
);

/**
 * The landing page (/): what Blockpilot is, with sign-in beside it. This module is the first paint
 * of the one route with a JavaScript budget (docs/public-site.md): the hero only; the sign-in form
 * (given by the router, from the auth feature) and the sections below load lazily.
 */
export default function HomePage({ signIn }: { signIn?: ReactNode }) {
  const { t } = useTranslation();
  const { claims, user, loading } = useSession();
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const { search } = useLocation();

  // Someone who signs in here goes on to their dashboard or console; its guard applies the rest of
  // the routing (confirm the phone, connect, filters, payment). The query string goes along, so
  // rule 5 carries it on to /payment (docs/product.md, post-sign-in routing). A visitor already
  // signed in stays.
  const signedOutBefore = useRef<boolean | null>(null);
  useEffect(() => {
    if (loading) return;
    if (signedOutBefore.current === null) signedOutBefore.current = claims === null;
    else if (signedOutBefore.current && claims) void navigate(claims.is_admin ? "/admin" : { pathname: "/flex/dashboard", search });
  }, [loading, claims, navigate, search]);

  return (
    <main id="main" tabIndex={-1} className="landing">
      <section className="landing-hero" aria-labelledby="landing-title">
        <div className="landing-hero-inner">
          <div className="landing-hero-copy">
            <p className="landing-eyebrow">{t("home.eyebrow")}</p>
            <h1 id="landing-title">{t("titles.home")}</h1>
            <p className="landing-lead">{t("home.lead")}</p>
            <div className="actions">
              <Link className="button button-large" to="/register">
                {t("home.register")}
              </Link>
              <a className="button button-secondary button-large" href="#how-it-works">
                {t("home.howItWorks")}
              </a>
            </div>
            <p className="landing-note">{t("home.support")}</p>
          </div>
          <div className="landing-hero-aside">
            {claims ? (
              <Welcome name={user?.name ?? null} isAdmin={claims.is_admin} />
            ) : (
              <HydrationBoundary fallback={<SignInWaiting />}>
                {!loading && hydrated ? <div className="card landing-signin">{signIn}</div> : <SignInWaiting />}
              </HydrationBoundary>
            )}
          </div>
        </div>
      </section>
      {sections}
    </main>
  );
}

/** The sign-in card's room while its code loads, so nothing below it jumps. */
function SignInWaiting() {
  return <div className="card landing-signin landing-signin-waiting" aria-hidden="true" />;
}

/**
 * False in the pre-rendered HTML and while it hydrates, true after: the sign-in form is never in
 * the HTML, where someone could start typing into it before its code runs. Set in a transition
 * from an effect: a store whose server value differs (useSyncExternalStore) would re-render the
 * page synchronously right after hydrating, one long task.
 */
function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => startTransition(() => setHydrated(true)), []);
  return hydrated;
}

/** A signed-in visitor is offered their dashboard (or the console) instead of the sign-in form. */
function Welcome({ name, isAdmin }: { name: string | null; isAdmin: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="card landing-signin landing-welcome">
      <h2>{name ? t("home.welcome", { name }) : t("home.welcomeBack")}</h2>
      <Link className="button button-large button-block" to={isAdmin ? "/admin" : "/flex/dashboard"}>
        {isAdmin ? t("home.console") : t("home.dashboard")}
      </Link>
    </div>
  );
}
