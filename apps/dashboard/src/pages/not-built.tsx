import { Link, useParams } from "react-router";

type Props = {
  title: string;
  /** What the page will show, from issue 19. */
  plan: string;
  /** The API routes it will read; they work today for anyone who wants the data now. */
  routes: string[];
};

/** A page that is planned but not built yet: its URL works (notification links point at it) and says so. */
export function NotBuilt({ title, plan, routes }: Props) {
  const params = useParams();
  const subject = params.id ?? params["*"];
  return (
    <section className="placeholder" aria-labelledby="page-title">
      <h1 id="page-title">{title}</h1>
      <p className="badge">Not built yet</p>
      {subject && (
        <p>
          You opened <code>{subject}</code>.
        </p>
      )}
      <p>{plan}</p>
      <p>Until then the same data is in the HTTP API:</p>
      <ul>
        {routes.map((route) => (
          <li key={route}>
            <code>{route}</code>
          </li>
        ))}
      </ul>
      <p>
        <a href="/docs">API reference</a> · <Link to="/">Back to the overview</Link>
      </p>
    </section>
  );
}

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
