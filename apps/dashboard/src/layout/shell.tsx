import { useEffect, useRef, useState } from "react";
import { NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { useUnreadCount } from "../notifications/queries.ts";
import { useSession } from "../session/session.tsx";

/** Every area's entry in the navigation, in the order of the routes. */
const SECTIONS = [
  { to: "/", label: "Overview" },
  { to: "/events", label: "Events" },
  { to: "/issues", label: "Issues" },
  { to: "/metrics", label: "Metrics" },
  { to: "/funnels", label: "Funnels" },
  { to: "/users", label: "Users" },
  { to: "/feedback", label: "Feedback" },
  { to: "/notifications", label: "Notifications", showsUnread: true },
  { to: "/jobs", label: "Jobs" },
  { to: "/settings", label: "Settings" },
];

/** The number seen, with words for screen readers: "Notifications, 3 unread" rather than "Notifications 3". */
function UnreadBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <>
      <span className="unread" aria-hidden="true">
        {count > 99 ? "99+" : count}
      </span>
      <span className="sr-only">, {count} unread</span>
    </>
  );
}

/**
 * The phone-width menu's state. It closes when a section is chosen (any change of location) and
 * on Escape, which gives the focus back to the button so the keyboard is not left on a list that
 * disappeared.
 */
function useMenu() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const location = useLocation();

  useEffect(() => setOpen(false), [location.pathname, location.search]);
  useEffect(() => {
    if (!open) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("keydown", closeOnEscape);
    return () => document.removeEventListener("keydown", closeOnEscape);
  }, [open]);

  return { open, button, toggle: () => setOpen((was) => !was) };
}

/** The frame around every signed-in page: navigation, the team switcher and sign-out. */
export function Shell() {
  const { user, teams, team, chooseTeam, signOut } = useSession();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);
  const unread = useUnreadCount();
  const unreadCount = unread.data?.count ?? 0;
  const menu = useMenu();

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
      {/* On a phone-width screen the sections and the account fold behind the menu button. */}
      <header className={menu.open ? "top menu-open" : "top"}>
        <span className="brand">Event Analytics</span>
        <button ref={menu.button} type="button" className="menu-button" aria-expanded={menu.open} aria-controls="sections account" onClick={menu.toggle}>
          <span aria-hidden="true">☰</span> Menu
          <UnreadBadge count={unreadCount} />
        </button>
        <nav id="sections" aria-label="Sections">
          {SECTIONS.map((section) => (
            <NavLink key={section.to} to={section.to} end={section.to === "/"}>
              {section.label}
              {section.showsUnread && <UnreadBadge count={unreadCount} />}
            </NavLink>
          ))}
        </nav>
        <div className="account" id="account">
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
