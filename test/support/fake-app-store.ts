import { createServer, type Server } from "node:http";

/** One storefront's numbers of an app, as the Lookup API names them. */
export type StoreNumbers = {
  trackId?: number;
  version?: string;
  averageUserRating?: number;
  userRatingCount?: number;
  averageUserRatingForCurrentVersion?: number;
  userRatingCountForCurrentVersion?: number;
};

/** A scripted answer, used once before the listings answer again: a status, a raw body, a delay. */
export type ScriptedAnswer = { status?: number; body?: string; delayMs?: number; headers?: Record<string, string> };

export type FakeAppStore = {
  baseUrl: string;
  /** Every lookup asked, in order. */
  received: { bundleId: string | null; country: string | null }[];
  /** Lists (or with null, unlists) the app in a storefront with these numbers. */
  list: (bundleId: string, country: string, numbers: StoreNumbers | null) => void;
  /** Answers the next lookups of (bundleId, country) with these, one each, before the listing again. */
  script: (bundleId: string, country: string, ...answers: ScriptedAnswer[]) => void;
  /** The lookups of one app in one storefront so far. */
  asked: (bundleId: string, country: string) => number;
  close: () => Promise<void>;
};

/** A result with the fields the real Lookup API returns for an app (a subset of its many). */
function result(bundleId: string, numbers: StoreNumbers) {
  return {
    wrapperType: "software",
    kind: "software",
    trackId: numbers.trackId ?? 284_882_215,
    trackName: `App ${bundleId}`,
    bundleId,
    sellerName: "Example Ltd",
    primaryGenreName: "Utilities",
    price: 0,
    currency: "USD",
    version: numbers.version ?? "1.0.0",
    currentVersionReleaseDate: "2026-01-15T08:00:00Z",
    trackViewUrl: `https://apps.apple.com/app/id${numbers.trackId ?? 284_882_215}`,
    averageUserRating: numbers.averageUserRating ?? 0,
    userRatingCount: numbers.userRatingCount ?? 0,
    averageUserRatingForCurrentVersion: numbers.averageUserRatingForCurrentVersion ?? 0,
    userRatingCountForCurrentVersion: numbers.userRatingCountForCurrentVersion ?? 0,
  };
}

/**
 * A local stand-in for the iTunes Search API's Lookup endpoint: `GET /lookup?bundleId=&country=`
 * answering `{resultCount, results}` as `text/javascript`, as the real one does; an app not listed
 * in the storefront gets `{"resultCount":0,"results":[]}`. Scripted answers (errors, malformed
 * bodies, delays) go first, one per request.
 */
export async function startFakeAppStore(): Promise<FakeAppStore> {
  const listings = new Map<string, StoreNumbers>();
  const scripts = new Map<string, ScriptedAnswer[]>();
  const received: FakeAppStore["received"] = [];
  const key = (bundleId: string | null, country: string | null) => `${bundleId}|${country}`;

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://store");
    const bundleId = url.searchParams.get("bundleId");
    const country = url.searchParams.get("country");
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      if (response.destroyed) return;
      response.writeHead(status, { "content-type": "text/javascript; charset=utf-8", ...headers });
      response.end(body);
    };
    if (request.method !== "GET" || url.pathname !== "/lookup") return send(404, "");
    received.push({ bundleId, country });
    const scripted = scripts.get(key(bundleId, country))?.shift();
    if (scripted !== undefined) {
      const answer = () => send(scripted.status ?? 200, scripted.body ?? "", scripted.headers);
      if (scripted.delayMs) setTimeout(answer, scripted.delayMs);
      else answer();
      return;
    }
    const numbers = listings.get(key(bundleId, country));
    const results = numbers === undefined || bundleId === null ? [] : [result(bundleId, numbers)];
    send(200, `\n\n\n${JSON.stringify({ resultCount: results.length, results })}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("fake app store has no port");
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    received,
    list: (bundleId, country, numbers) => {
      if (numbers === null) listings.delete(key(bundleId, country));
      else listings.set(key(bundleId, country), numbers);
    },
    script: (bundleId, country, ...answers) => scripts.set(key(bundleId, country), [...(scripts.get(key(bundleId, country)) ?? []), ...answers]),
    asked: (bundleId, country) => received.filter((entry) => entry.bundleId === bundleId && entry.country === country).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
