import { Link } from "react-router";

/** Any path below /dashboard that no page has. */
export function NotFound() {
  return (
    <section className="placeholder" aria-labelledby="page-title">
      <h1 id="page-title">No such page</h1>
      <p>
        The dashboard has no page at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </section>
  );
}
