/**
 * The fake platform's own sign-in pages for Flex (what `/ap/signin` shows): email and password,
 * then a code or an approval when the account asks for one, and the landing page the platform
 * ends on. Plain HTML forms, so a browser test and a plain HTTP client can both go through them.
 * The PKCE and client parameters of the sign-in address ride along in hidden fields.
 */
const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The OpenID parameters the page keeps from its address (the rest are ignored). */
export const CARRIED = ["openid.return_to", "openid.oa2.code_challenge", "openid.oa2.code_challenge_method", "openid.oa2.client_id", "language"] as const;

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${html(title)}</title><body style="font-family:sans-serif;max-width:28rem;margin:2rem auto"><p><strong>Fake delivery platform</strong></p><h1>${html(title)}</h1>${body}</body></html>`;
}

function hidden(carried: Record<string, string>) {
  return Object.entries(carried)
    .map(([k, v]) => `<input type="hidden" name="${html(k)}" value="${html(v)}">`)
    .join("");
}

/** Email and password (any email in the demo world; "+code" asks for a code, "+approve" for an approval). */
export function signInForm(action: string, carried: Record<string, string>, error: string | null) {
  return page(
    "Sign in",
    `${error ? `<p role="alert">${html(error)}</p>` : ""}<form method="post" action="${html(action)}">${hidden(carried)}<input type="hidden" name="step" value="password"><label>Email <input name="email" type="email" autocomplete="username" required></label><br><label>Password <input name="password" type="password" autocomplete="current-password" required></label><br><button type="submit">Sign in</button></form>`,
  );
}

export function codeForm(action: string, carried: Record<string, string>, session: string, error: string | null) {
  return page(
    "Enter the code",
    `${error ? `<p role="alert">${html(error)}</p>` : "<p>We sent a code to your email.</p>"}<form method="post" action="${html(action)}">${hidden(carried)}<input type="hidden" name="step" value="code"><input type="hidden" name="session" value="${html(session)}"><label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label><br><button type="submit">Continue</button></form>`,
  );
}

export function approvalWait(action: string, carried: Record<string, string>, session: string, approveUrl: string, denied: boolean) {
  return page(
    denied ? "Sign-in denied" : "Approve the sign-in",
    denied
      ? `<p role="alert">The sign-in was denied.</p>`
      : `<p>Approve this sign-in on your other device (<a href="${html(approveUrl)}">the fake's approvals</a>), then continue.</p><form method="post" action="${html(action)}">${hidden(carried)}<input type="hidden" name="step" value="approval"><input type="hidden" name="session" value="${html(session)}"><button type="submit">Continue</button></form>`,
  );
}

/** The landing page: shows nothing useful, as the platform's does; its address is what matters. */
export function landingPage() {
  return page("Signed in", "<p>You may close this page.</p>");
}

export function failurePage(message: string) {
  return page("Something went wrong", `<p role="alert">${html(message)}</p>`);
}
