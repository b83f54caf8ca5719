import type { InferResponseType } from "hono/client";
import { useEffect } from "react";
import useSWR from "swr";
import { api, unwrap } from "../../lib/api-client";
import { useSession } from "../../lib/session";

/** Who the support chat is talking to; phoneHash is signed on the server, so the chat provider can trust the phone. */
export type ChatIdentity = InferResponseType<typeof api.flex.v1.user.chat.$get>;

type ChatwootApi = {
  setUser: (id: string, user: Record<string, unknown>) => void;
  setCustomAttributes: (attributes: Record<string, unknown>) => void;
  setLabel: (label: string) => void;
  reset: () => void;
};
declare global {
  interface Window {
    /** What the widget script reads (or is handed when it announces itself ready). */
    blockpilotChat?: ChatIdentity;
    $chatwoot?: ChatwootApi;
  }
}

const SCRIPT_ID = "bp-chat-widget";

function identify(identity: ChatIdentity) {
  window.blockpilotChat = identity;
  // Chatwoot's SDK (the widget this identity shape was made for) takes it through its own calls.
  const chat = window.$chatwoot;
  if (!chat) return;
  chat.setUser(identity.phone, { email: identity.email ?? undefined, name: identity.name, phone_number: identity.phone, identifier_hash: identity.phoneHash });
  chat.setCustomAttributes(identity.attributes);
  chat.setLabel(identity.label);
}

/**
 * Loads the chat-support widget for a signed-in user when the server says it is configured (it
 * is not, locally) and hands it the user's identity. Mounted only while someone is signed in;
 * unmounting (sign-out) forgets the identity, so the next person here does not chat as the last.
 */
export default function ChatWidget() {
  const { user, claims } = useSession();
  const { data } = useSWR<ChatIdentity>(user && claims ? ["/api/flex/v1/user/chat", claims.sub] : null, () => unwrap(api.flex.v1.user.chat.$get()), {
    revalidateOnFocus: false,
  });
  const identity = user && data?.enabled && data.scriptUrl ? data : null;

  useEffect(() => {
    if (!identity) return;
    identify(identity);
    const onReady = () => identify(identity);
    window.addEventListener("chatwoot:ready", onReady);
    if (!document.getElementById(SCRIPT_ID)) {
      const script = document.createElement("script");
      script.id = SCRIPT_ID;
      script.src = identity.scriptUrl!;
      script.async = true;
      script.onerror = () => console.error("The chat widget could not be loaded", identity.scriptUrl);
      document.body.appendChild(script);
    }
    return () => {
      window.removeEventListener("chatwoot:ready", onReady);
      delete window.blockpilotChat;
      window.$chatwoot?.reset();
    };
  }, [identity]);

  return null;
}
