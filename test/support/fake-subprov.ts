import { createServer, type Server } from "node:http";

/** An entitlement as `GET /v1/subscribers/{id}` shows it. */
export type FakeEntitlement = { expires_date: string | null; product_identifier: string; purchase_date: string };

/** A v2 subscription, with the fields this service reads and the ones around them the provider sends. */
export type FakeSubscription = {
  product_id: string;
  status: string;
  auto_renewal_status: string;
  gives_access: boolean;
  starts_at: number;
  current_period_starts_at: number;
  current_period_ends_at: number | null;
  gross_usd: number;
};

export type FakeCustomer = { entitlements: Record<string, FakeEntitlement>; subscriptions: FakeSubscription[]; firstSeenMs: number };

/** A scripted answer, served instead of the normal one: a status, a body (JSON unless a string), a delay. */
export type FakeAnswer = { status: number; body?: unknown; delayMs?: number };

/**
 * A local stand-in for the subscription provider's REST API, speaking its request and response
 * shapes: `GET /v2/projects/{project_id}/customers/{customer_id}` (404 for an unknown id),
 * `GET /v1/subscribers/{app_user_id}` (404 for an unknown id),
 * `GET /v2/projects/{project_id}/customers/{customer_id}/subscriptions` and
 * `GET /v2/projects/{project_id}/customers` (paged with `limit`, `starting_after` and `next_page`).
 * Every call needs `Authorization: Bearer <apiKey>` (401 otherwise). `script` queues answers for
 * paths starting with a prefix (failures, slow answers, malformed bodies), served first in order.
 */
export async function startFakeSubprov(options: { apiKey: string; projectId: string }) {
  // Customers per provider project; v1 (not project-scoped in its path) finds a subscriber in any of them.
  const projects = new Map<string, Map<string, FakeCustomer>>();
  const customersOf = (projectId: string) => projects.get(projectId) ?? projects.set(projectId, new Map()).get(projectId)!;
  const customers = customersOf(options.projectId);
  const scripts: { prefix: string; answers: FakeAnswer[] }[] = [];
  const received: { method: string; path: string; authorization: string | undefined }[] = [];

  const subscriberBody = (id: string, customer: FakeCustomer) => ({
    request_date: new Date().toISOString(),
    request_date_ms: Date.now(),
    subscriber: {
      entitlements: customer.entitlements,
      first_seen: new Date(customer.firstSeenMs).toISOString(),
      last_seen: new Date().toISOString(),
      management_url: null,
      non_subscriptions: {},
      original_app_user_id: id,
      original_application_version: null,
      original_purchase_date: null,
      other_purchases: {},
      subscriber_attributes: {},
      subscriptions: Object.fromEntries(
        customer.subscriptions.map((s) => [
          s.product_id,
          {
            expires_date: s.current_period_ends_at === null ? null : new Date(s.current_period_ends_at).toISOString(),
            purchase_date: new Date(s.current_period_starts_at).toISOString(),
            original_purchase_date: new Date(s.starts_at).toISOString(),
            period_type: s.status === "trialing" ? "trial" : "normal",
            store: "app_store",
            is_sandbox: false,
            unsubscribe_detected_at: null,
            billing_issues_detected_at: null,
            grace_period_expires_date: null,
            ownership_type: "PURCHASED",
            refunded_at: null,
            store_transaction_id: `tx_${s.product_id}`,
          },
        ]),
      ),
    },
  });

  const subscriptionItem = (customerId: string, s: FakeSubscription, index: number) => ({
    object: "subscription",
    id: `sub${index}_${customerId}`,
    customer_id: customerId,
    original_customer_id: customerId,
    product_id: s.product_id,
    starts_at: s.starts_at,
    current_period_starts_at: s.current_period_starts_at,
    current_period_ends_at: s.current_period_ends_at,
    gives_access: s.gives_access,
    pending_payment: false,
    auto_renewal_status: s.auto_renewal_status,
    status: s.status,
    total_revenue_in_usd: { currency: "USD", gross: s.gross_usd, commission: s.gross_usd * 0.15, tax: 0, proceeds: s.gross_usd * 0.85 },
    presented_offering_id: null,
    entitlements: { object: "list", items: [], next_page: null, url: `/v2/projects/${options.projectId}/subscriptions/sub${index}/entitlements` },
    environment: "production",
    store: "app_store",
    store_subscription_identifier: `tx_${s.product_id}`,
    ownership: "purchased",
  });

  function answer(method: string, url: URL, authorization: string | undefined): FakeAnswer {
    if (authorization !== `Bearer ${options.apiKey}`) return { status: 401, body: { code: 7225, message: "Invalid API key." } };
    if (method !== "GET") return { status: 405, body: { message: "method not allowed" } };
    const path = url.pathname;
    const v1 = /^\/v1\/subscribers\/([^/]+)$/.exec(path);
    if (v1) {
      const id = decodeURIComponent(v1[1]!);
      const customer = [...projects.values()].find((map) => map.has(id))?.get(id);
      return customer ? { status: 200, body: subscriberBody(id, customer) } : { status: 404, body: { code: 7259, message: "Subscriber not found." } };
    }
    const project = /^\/v2\/projects\/([^/]+)\/customers/.exec(path)?.[1];
    const known = project === undefined ? undefined : projects.get(decodeURIComponent(project));
    if (known === undefined) return { status: 404, body: { object: "error", type: "resource_missing", message: "Project not found" } };
    const prefix = `/v2/projects/${project}/customers`;
    const subscriptions = new RegExp(`^${prefix}/([^/]+)/subscriptions$`).exec(path);
    if (subscriptions) {
      const id = decodeURIComponent(subscriptions[1]!);
      const customer = known.get(id);
      if (!customer) return { status: 404, body: { object: "error", type: "resource_missing", message: "Customer not found" } };
      return { status: 200, body: { object: "list", items: customer.subscriptions.map((s, i) => subscriptionItem(id, s, i)), next_page: null, url: path } };
    }
    const one = new RegExp(`^${prefix}/([^/]+)$`).exec(path);
    if (one) {
      const id = decodeURIComponent(one[1]!);
      const customer = known.get(id);
      if (!customer) return { status: 404, body: { object: "error", type: "resource_missing", message: "Customer not found" } };
      return { status: 200, body: { object: "customer", id, project_id: project, first_seen_at: customer.firstSeenMs, last_seen_at: Date.now(), active_entitlements: { object: "list", items: [], next_page: null, url: `${path}/active_entitlements` } } };
    }
    if (path === prefix) {
      const limit = Number(url.searchParams.get("limit") ?? "20");
      const after = url.searchParams.get("starting_after");
      const ordered = [...known.entries()].sort(([a, x], [b, y]) => x.firstSeenMs - y.firstSeenMs || a.localeCompare(b));
      const start = after === null ? 0 : ordered.findIndex(([id]) => id === after) + 1;
      const slice = ordered.slice(start, start + limit);
      const more = start + limit < ordered.length;
      return {
        status: 200,
        body: {
          object: "list",
          items: slice.map(([id, c]) => ({ object: "customer", id, project_id: options.projectId, first_seen_at: c.firstSeenMs, last_seen_at: Date.now() })),
          next_page: more ? `${prefix}?starting_after=${encodeURIComponent(slice.at(-1)![0])}&limit=${limit}` : null,
          url: prefix,
        },
      };
    }
    return { status: 404, body: { object: "error", type: "resource_missing", message: "not found" } };
  }

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fake");
    received.push({ method: request.method ?? "", path: url.pathname + url.search, authorization: request.headers.authorization });
    const script = scripts.find((entry) => url.pathname.startsWith(entry.prefix) && entry.answers.length > 0);
    const chosen = script ? script.answers.shift()! : answer(request.method ?? "", url, request.headers.authorization);
    const send = () => {
      if (response.destroyed) return;
      const text = typeof chosen.body === "string" ? chosen.body : chosen.body === undefined ? "" : JSON.stringify(chosen.body);
      response.writeHead(chosen.status, { "content-type": "application/json" });
      response.end(text);
    };
    request.resume();
    if (chosen.delayMs) setTimeout(send, chosen.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("fake subscription provider has no port");
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    received,
    customers,
    /** The customers of another provider project (created empty on first use). */
    customersOf,
    /** Queues answers for the next calls to paths starting with `prefix`. */
    script: (prefix: string, ...answers: FakeAnswer[]) => void scripts.push({ prefix, answers }),
    /** Calls received for paths starting with `prefix`. */
    callsTo: (prefix: string) => received.filter((call) => call.path.startsWith(prefix)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
