import { useState } from "react";
import { NavLink, Outlet, useNavigate } from "react-router";
import { useSession } from "../session/session.tsx";

/** Every page's entry in the navigation; the placeholders are listed too, so their URLs are found. */
const SECTIONS = [
  { to: "/", label: "Overview" },
  { to: "/events", label: "Events" },
  { to: "/issues", label: "Issues" },
  { to: "/metrics", label: "Metrics" },
  { to: "/funnels", label: "Funnels" },
  { to: "/users", label: "Users" },
  { to: "/jobs", label: "Jobs" },
  { to: "/settings", label: "Settings" },
];

/** The frame around every signed-in page: navigation, the team switcher and sign-out. */
export function Shell() {
  const { user, teams, team, chooseTeam, signOut } = useSession();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  const switchTeam = (teamId: string) => {
    chooseTeam(teamId);
    // A project of the previous team means nothing in the new one: start from its overview.
    void navigate("/");
  };
  const leave = async () => {
    setSigningOut(true);
    try {
      await signOut();
    } finally {
      setSigningOut(false);
    }
  };

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Event Analytics</span>
        <nav aria-label="Sections">
          {SECTIONS.map((section) => (
            <NavLink key={section.to} to={section.to} end={section.to === "/"}>
              {section.label}
            </NavLink>
          ))}
        </nav>
        <div className="account">
          <label htmlFor="team" className="sr-only">
            Team
          </label>
          <select id="team" value={team.id} onChange={(event) => switchTeam(event.target.value)}>
            {teams.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
          <span className="who" title={user.email}>
            {user.email}
          </span>
          <button type="button" onClick={() => void leave()} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
