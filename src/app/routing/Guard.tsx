import { type ReactNode, useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { Link, Navigate, Outlet, useLocation, useNavigate } from "react-router";
import { useOnline } from "../components/ui/OfflineNotice";
import { Splash } from "../components/ui/Splash";
import { StatusView } from "../components/ui/StatusView";
import { publicApi, unwrap } from "../lib/api-client";
import { useRouteHandle } from "../lib/page-title";
import { useSession } from "../lib/session";
import { ExpiryNotice } from "./ExpiryNotice";
import "./routing.css";
import { type ConfirmState, decide, type GuardLevel } from "./post-sign-in";
import { forgetResume, readResume, rememberResume } from "./resume";
import "../i18n/auth";

/**
 * A route element that applies the post-sign-in routing for its level (post-sign-in.ts): the
 * screen, the splash while the session or user loads, a redirect, or the "couldn't load user"
 * view. Without children it renders the matched child route.
 */
export function Guard({ level, children }: { level: GuardLevel; children?: ReactNode }) {
  const session = useSession();
  // The admin guard stands outside its layout, so its own views bring the page's <main> (the skip
  // link's target, the one main landmark); other guards render inside a layout's main.
  const framed = (view: ReactNode) =>
    level === "admin" ? (
      <main id="main" tabIndex={-1} className="page">
        {view}
      </main>
    ) : (
      view
    );
  const { pathname, search } = useLocation();
  const resume = readResume();
  const decision = decide(level, { ...session, resume }, search);
  // Only a page opened without a session is worth coming back to: one whose session just ended
  // (signing out from /profile) is not where the next sign-in should land.
  const hadSession = useRef(false);
  if (session.claims) hadSession.current = true;

  switch (decision.kind) {
    case "wait":
      return framed(SHOWS_ITS_PAGE[level] ? <PagePending /> : <Splash inline />);
    case "error":
      return framed(<UserLoadError />);
    case "redirect":
      // Storage writes are idempotent, so doing them while rendering the redirect is safe.
      if (decision.remember && !hadSession.current) rememberResume(`${pathname}${search}`);
      else if (decision.to === resume) forgetResume();
      return <Navigate to={decision.to} replace />;
    case "forbidden":
      return framed(<NoAccess />);
    case "confirm":
      return framed(<ResendThenConfirm state={decision.state} />);
    case "allow":
      return (
        <>
          {level !== "guest" && level !== "confirm" && level !== "admin" && <ExpiryNotice />}
          {children ?? <Outlet />}
        </>
      );
  }
}

/**
 * The levels whose page is what a session most likely shows once it has loaded: while it loads,
 * the page's own title and a loading view stand in its place (PagePending). The others wait on the
 * splash: a guest page with a stored session is about to send the visitor on, the confirm page may
 * too, and the admin console has a frame of its own.
 */
const SHOWS_ITS_PAGE: Record<GuardLevel, boolean> = { guest: false, confirm: false, signedIn: true, settings: true, full: true, admin: false };

/**
 * A guarded page while the session loads: its heading (the route's title), its lead when the route
 * names one, and a loading view, laid out as a page's first rows are, so the page takes its place
 * without moving them. The build pre-renders the driver's dashboard and insights in this state for
 * a visit with a stored session (docs/public-site.md, "Pre-rendered pages"): their largest paint
 * is then on screen before any script has run, and the page that replaces it paints nothing larger.
 */
function PagePending() {
  const { t } = useTranslation();
  const handle = useRouteHandle();
  return (
    <section className="page-pending">
      {handle?.title && <h1>{t(handle.title)}</h1>}
      {handle?.lead && <p className="muted">{t(handle.lead)}</p>}
      <StatusView kind="loading" />
    </section>
  );
}

// StrictMode runs effects twice and several guards may decide at once: one code per phone per minute.
const RESEND_DEDUPE_MS = 60_000;
const recentResends = new Map<string, number>();

/** docs/product.md, accounts and signing in: resend a confirmation code (a failure is only logged), then go to /confirm-account. */
export async function resendConfirmationCode({ phoneNumber, app }: Pick<ConfirmState, "phoneNumber" | "app">, now = Date.now()) {
  const key = `${app}:${phoneNumber}`;
  if (now - (recentResends.get(key) ?? 0) < RESEND_DEDUPE_MS) return;
  recentResends.set(key, now);
  try {
    await unwrap(publicApi.auth["resend-code"].$post({ json: { phoneNumber, app } }));
  } catch (err) {
    console.error("Could not resend the confirmation code", err);
  }
}

/** For tests: forget which phones were sent a code. */
export function forgetResends() {
  recentResends.clear();
}

function ResendThenConfirm({ state }: { state: ConfirmState }) {
  const navigate = useNavigate();
  // Keyed by the phone and app: the state object itself is rebuilt on every render.
  const { phoneNumber, app, reason } = state;
  useEffect(() => {
    let live = true;
    const target: ConfirmState = { phoneNumber, app, reason };
    void resendConfirmationCode(target).then(() => {
      if (live) void navigate("/confirm-account", { replace: true, state: target });
    });
    return () => {
      live = false;
    };
  }, [navigate, phoneNumber, app, reason]);
  return <Splash inline />;
}

/** A signed-in person who is not an administrator opened an admin screen: say so, and offer a way on. */
function NoAccess() {
  const { t } = useTranslation("auth");
  const { user } = useSession();
  return (
    <section className="guard-error" role="alert">
      <h1>{t("routing.noAccess.title")}</h1>
      <p>{t("routing.noAccess.body", { name: user?.name ?? "" })}</p>
      <Link className="button" to="/">
        {t("routing.noAccess.home")}
      </Link>
    </section>
  );
}

function UserLoadError() {
  const { t } = useTranslation();
  const { reloadUser, signOut } = useSession();
  const online = useOnline();
  // Offline (a page the service worker served from its cache): not a failure, a wait; the frame
  // says the device is offline, and the user is read again as soon as the network is back.
  const wasOffline = useRef(!online);
  useEffect(() => {
    if (!online) wasOffline.current = true;
    else if (wasOffline.current) {
      wasOffline.current = false;
      void reloadUser();
    }
  }, [online, reloadUser]);
  if (!online) {
    return (
      <section className="guard-error" role="status">
        <h1>{t("app:offline.account")}</h1>
        <p className="muted">{t("app:offline.accountHelp")}</p>
      </section>
    );
  }
  return (
    <section className="guard-error" role="alert">
      <h1>{t("errors.couldntLoadUser")}</h1>
      <p className="muted">{t("auth:routing.userLoadHelp")}</p>
      <div className="actions">
        <button type="button" className="button" onClick={() => void reloadUser()}>
          {t("auth:routing.retry")}
        </button>
        <button type="button" className="button button-secondary" onClick={() => void signOut()}>
          {t("menu.signOut")}
        </button>
      </div>
    </section>
  );
}
