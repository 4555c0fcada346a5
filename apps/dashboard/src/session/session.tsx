import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { api, isUnauthorized, unwrap, type Answer } from "../api/client.ts";
import { SESSION_KEY } from "../api/query-client.ts";
import { ErrorState, Loading } from "../ui/states.tsx";
import { SignIn } from "./sign-in.tsx";

type Me = Answer<"/v1/auth/me">;
export type Team = Me["teams"][number];

type Session = {
  user: Me["user"];
  teams: Team[];
  /** The team the pages show; every signed-in user has at least one (sign-in creates it). */
  team: Team;
  chooseTeam: (teamId: string) => void;
  signOut: () => Promise<void>;
};

const SessionContext = createContext<Session | undefined>(undefined);

/** Remembered per browser, so a reload or a new tab opens the team last looked at. */
const TEAM_STORAGE_KEY = "dashboard.team";

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside <SessionGate>");
  return session;
}

/**
 * Asks the API who the `token` cookie belongs to: without a valid one, the sign-in page is shown
 * in place of whatever URL was opened, so the page asked for opens right after signing in.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const me = useQuery({ queryKey: SESSION_KEY, queryFn: () => unwrap(api.GET("/v1/auth/me")), retry: false, refetchInterval: false, staleTime: 5 * 60_000 });
  if (me.isPending) return <Loading label="Checking your session" />;
  if (me.isError) return isUnauthorized(me.error) ? <SignIn /> : <ErrorState error={me.error} retry={() => void me.refetch()} />;
  return <SignedIn me={me.data}>{children}</SignedIn>;
}

function SignedIn({ me, children }: { me: Me; children: ReactNode }) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState(() => localStorage.getItem(TEAM_STORAGE_KEY));
  const team = me.teams.find((candidate) => candidate.id === chosen) ?? me.teams[0];

  const chooseTeam = useCallback((teamId: string) => {
    localStorage.setItem(TEAM_STORAGE_KEY, teamId);
    setChosen(teamId);
  }, []);

  const signOut = useCallback(async () => {
    await unwrap(api.POST("/v1/auth/logout"));
    // Nothing of this user may stay on screen or in memory for whoever signs in next.
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
    await queryClient.resetQueries({ queryKey: SESSION_KEY });
  }, [queryClient]);

  const session = useMemo(() => (team ? { user: me.user, teams: me.teams, team, chooseTeam, signOut } : undefined), [me, team, chooseTeam, signOut]);
  if (!session) return <ErrorState error={new Error("This account belongs to no team.")} />;
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
