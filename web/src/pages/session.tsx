import { createContext, useContext } from 'react';
import type { Account } from '../shared/types';

/** Who is signed in, and how pages change it (sign-in, sign-out). */
export interface Session {
  account: Account | null;
  setAccount: (account: Account | null) => void;
}

/** The session of the pages, provided by the app shell. */
export const SessionContext = createContext<Session>({ account: null, setAccount: () => {} });

/** The current session. */
export function useSession(): Session {
  return useContext(SessionContext);
}
