/**
 * The screen a signed-out visitor was sent away from, kept for this tab (sessionStorage) so that
 * signing in, on whichever screen it happens and through any challenge, resumes there.
 */
const KEY = "bp.resume";

/** Only paths of this app: "/admin/users/42?tab=audit", never "//elsewhere" or a full URL. */
function isAppPath(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !path.includes("\\");
}

export function rememberResume(path: string) {
  if (!isAppPath(path) || path === "/") return;
  try {
    sessionStorage.setItem(KEY, path);
  } catch {
    // Storage refused (private mode): sign-in lands on the usual screen instead.
  }
}

export function readResume(): string | null {
  try {
    const path = sessionStorage.getItem(KEY);
    return path && isAppPath(path) ? path : null;
  } catch {
    return null;
  }
}

export function forgetResume() {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}
