import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";
import { PUBLIC } from "../auth/access.ts";

export const DASHBOARD_PREFIX = "/dashboard";

/** Vite names every bundled file after its content hash, so a cached copy can never be stale. */
const HASHED_ASSETS = "assets/";
const IMMUTABLE = "public, max-age=31536000, immutable";
/**
 * The page loads only its own bundle and talks only to this origin's API; recharts sets inline
 * `style` attributes, hence 'unsafe-inline' for styles (never for scripts).
 */
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/**
 * `dist/dashboard`, where `npm run build` puts the bundle, found from this file whether it runs
 * from the source (tests, `npm run cli`) or compiled into `dist/` (`npm start`): the nearest
 * folder above it that holds package.json is the repository.
 */
function builtDashboardDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, "dist", "dashboard");
}

/** Every file of the bundle as a URL path (`assets/index-3f2a.js`). */
async function bundleFiles(root: string): Promise<Set<string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return new Set(entries.filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/")));
}

/**
 * Serves the dashboard (apps/dashboard, built by `npm run build`) at /dashboard. Only files of the
 * bundle are ever read, so no request path can reach outside it. Any other path below
 * /dashboard gets index.html, so the app's routes are real URLs (a link in a notification mail
 * opens the page it names); index.html is revalidated on every load so a new deploy is picked up,
 * while the hashed assets it names are cached for a year.
 */
export async function registerDashboard(app: FastifyInstance, root = builtDashboardDir()): Promise<void> {
  // Read once: the build does not change under a running service. Until a bundle is there (a
  // service started while a build swapped its folder in) it is looked for again on each request.
  let files = await bundleFiles(root);
  const current = async () => (files.has("index.html") ? files : (files = await bundleFiles(root)));
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, { root, serve: false });

    const page = (reply: FastifyReply) => {
      if (!files.has("index.html")) return reply.code(503).type("text/plain").send("The dashboard is not built: run `npm run build`.");
      return reply.header("cache-control", "no-cache").header("content-security-policy", PAGE_POLICY).sendFile("index.html", { cacheControl: false });
    };
    const options = { schema: { hide: true }, config: { access: PUBLIC } };

    scope.get(DASHBOARD_PREFIX, options, async (_request, reply) => {
      await current();
      return page(reply);
    });
    scope.get<{ Params: { "*": string } }>(`${DASHBOARD_PREFIX}/*`, options, async (request, reply) => {
      await current();
      const path = request.params["*"];
      if (path !== "index.html" && files.has(path)) {
        return reply.header("cache-control", path.startsWith(HASHED_ASSETS) ? IMMUTABLE : "no-cache").sendFile(path, { cacheControl: false });
      }
      // A missing script or stylesheet must fail as one, not load the page in its place.
      if (path.startsWith(HASHED_ASSETS)) return reply.code(404).send({ error: "no such dashboard asset" });
      return page(reply);
    });
  });
}
