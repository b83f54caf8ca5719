import { createContext, useContext, type ReactNode } from "react";

/** What the shell needs of the signed-in user; the identity feature provides the real session. */
export type ShellUser = { name: string; isAdmin: boolean };

export type SessionValue = {
  loading: boolean;
  user: ShellUser | null;
  signOut: () => Promise<void>;
};

const signedOut: SessionValue = { loading: false, user: null, signOut: async () => {} };

export const SessionContext = createContext<SessionValue>(signedOut);

export function useSession(): SessionValue {
  return useContext(SessionContext);
}

export function StaticSessionProvider({ value, children }: { value: SessionValue; children: ReactNode }) {
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
