import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** One entity of the fake account: its report metadata (the network's field names) and its period spend. */
export type FakeEntity = { metadata: Record<string, unknown>; spend: string };

export type FakeAccount = {
  orgId: number;
  /** The ACL's `currency` of the org. */
  currency: string;
  campaigns: FakeEntity[];
  /** By campaign id. */
  adGroups: Record<string, FakeEntity[]>;
  keywords: Record<string, FakeEntity[]>;
  ads: Record<string, FakeEntity[]>;
};

/** A one-off answer for the next request whose path matches: a status, a raw body, or a delay past the client's timeout. */
export type Fault = { path: RegExp; status?: number; body?: string; delayMs?: number; headers?: Record<string, string> };

export type ReceivedCall = { method: string; path: string; authorization: string | undefined; context: string | undefined; body: any };

/**
 * A local stand-in for the ad network's Campaign Management API v5, speaking its shapes:
 * `GET /api/v5/acls` (`{data: [{orgId, orgName, currency, …}]}`) and the report endpoints
 * `POST /api/v5/reports/campaigns[/<id>/adgroups|keywords|ads]` answering
 * `{data: {reportingDataResponse: {row: [{metadata, total: {localSpend}}]}}, pagination}` page by
 * page as the request's `selector.pagination` asks. Requests need `Authorization: Bearer <token>`
 * and `X-AP-Context: orgId=<org>` (401/403 otherwise). `faults` are consumed in order by the first
 * matching request each; `received` records every call.
 */
export async function startFakeAdnetReporting(token: string, account: FakeAccount) {
  const received: ReceivedCall[] = [];
  const faults: Fault[] = [];
  const state = { account };

  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (response.destroyed) return;
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  const report = (entities: FakeEntity[], currency: string, request: any) => {
    const offset = Number(request?.selector?.pagination?.offset ?? 0);
    const limit = Number(request?.selector?.pagination?.limit ?? 20);
    const page = entities.slice(offset, offset + limit);
    return {
      data: {
        reportingDataResponse: {
          row: page.map((entity) => ({
            other: false,
            metadata: entity.metadata,
            total: { impressions: 1000, taps: 50, installs: 10, ttr: 0.05, localSpend: { amount: entity.spend, currency } },
          })),
          grandTotals: null,
        },
      },
      pagination: { totalResults: entities.length, startIndex: offset, itemsPerPage: page.length },
      error: null,
    };
  };

  const answer = (request: IncomingMessage, response: ServerResponse, path: string, body: any) => {
    const fault = faults.findIndex((candidate) => candidate.path.test(path));
    if (fault >= 0) {
      const [chosen] = faults.splice(fault, 1);
      const reply = () => send(response, chosen!.status ?? 200, chosen!.body ?? "", chosen!.headers);
      if (chosen!.delayMs) setTimeout(reply, chosen!.delayMs);
      else reply();
      return;
    }
    if (request.headers.authorization !== `Bearer ${token}`) return send(response, 401, { error: { errors: [{ messageCode: "UNAUTHORIZED" }] } });
    const { account: current } = state;
    if (request.method === "GET" && path === "/api/v5/acls") {
      return send(response, 200, {
        data: [{ orgName: "Example Org", orgId: current.orgId, currency: current.currency, paymentModel: "PAYG", roleNames: ["API Account Read Only"], timeZone: "UTC" }],
        pagination: null,
        error: null,
      });
    }
    if (request.headers["x-ap-context"] !== `orgId=${current.orgId}`) return send(response, 403, { error: { errors: [{ messageCode: "FORBIDDEN" }] } });
    if (request.method === "POST" && path === "/api/v5/reports/campaigns") return send(response, 200, report(current.campaigns, current.currency, body));
    const nested = /^\/api\/v5\/reports\/campaigns\/(\d+)\/(adgroups|keywords|ads)$/.exec(path);
    if (request.method === "POST" && nested) {
      const [, campaignId, kind] = nested;
      const source = kind === "adgroups" ? current.adGroups : kind === "keywords" ? current.keywords : current.ads;
      return send(response, 200, report(source[campaignId!] ?? [], current.currency, body));
    }
    send(response, 404, { error: { errors: [{ messageCode: "NOT_FOUND" }] } });
  };

  const server = createServer((request, response) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => {
      const path = (request.url ?? "").split("?")[0]!;
      let body: any = null;
      try {
        body = text === "" ? null : JSON.parse(text);
      } catch {
        body = text;
      }
      received.push({ method: request.method ?? "", path, authorization: request.headers.authorization, context: request.headers["x-ap-context"] as string | undefined, body });
      answer(request, response, path, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("fake ad network reporting has no port");
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    received,
    /** Queues one-off answers. */
    fail: (...more: Fault[]) => faults.push(...more),
    /** Replaces the account the next calls see. */
    setAccount: (next: FakeAccount) => {
      state.account = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeAdnetReporting = Awaited<ReturnType<typeof startFakeAdnetReporting>>;

/** Report metadata with the network's field names. */
export const campaignMeta = (campaignId: number, campaignName: string, fields: Record<string, unknown> = {}) => ({
  campaignId,
  campaignName,
  campaignStatus: "ENABLED",
  displayStatus: "RUNNING",
  servingStatus: "RUNNING",
  deleted: false,
  startTime: "2026-01-15T00:00:00.000",
  orgId: 40669820,
  app: { appName: "Example", adamId: 1234567890 },
  ...fields,
});
export const adGroupMeta = (campaignId: number, adGroupId: number, adGroupName: string, fields: Record<string, unknown> = {}) => ({
  campaignId,
  adGroupId,
  adGroupName,
  adGroupStatus: "ENABLED",
  adGroupDisplayStatus: "RUNNING",
  adGroupServingStatus: "RUNNING",
  deleted: false,
  startTime: "2026-02-01T00:00:00.000",
  orgId: 40669820,
  ...fields,
});
export const keywordMeta = (adGroupId: number, keywordId: number, keyword: string, fields: Record<string, unknown> = {}) => ({
  keywordId,
  keyword,
  keywordStatus: "ACTIVE",
  keywordDisplayStatus: "RUNNING",
  matchType: "EXACT",
  adGroupId,
  adGroupName: "group",
  deleted: false,
  ...fields,
});
export const adMeta = (campaignId: number, adGroupId: number, adId: number, adName: string, fields: Record<string, unknown> = {}) => ({
  adId,
  adName,
  campaignId,
  adGroupId,
  status: "ENABLED",
  adDisplayStatus: "RUNNING",
  creationTime: "2026-02-03T10:00:00.000",
  deleted: false,
  ...fields,
});
