import { z } from "zod";
import type { Entitlement, Subscription } from "../../domain/integrations/subprov-properties.ts";
import { DEFAULT_RETRY, ProviderError, providerJson, type RetryPolicy } from "./provider-http.ts";

/** How errors and logs name the provider. */
export const SUBPROV = "subscription provider (subprov)";

export type SubprovSettings = { baseUrl: string; timeoutMs: number; retry?: RetryPolicy };
/** An integration's credentials: its secret API key and the project's id at the provider. */
export type SubprovCredentials = { apiKey: string; providerProjectId: string };

const entitlement = z.object({
  expires_date: z.string().datetime({ offset: true }).nullable(),
  product_identifier: z.string(),
  purchase_date: z.string().datetime({ offset: true }),
});

/** `GET /v1/subscribers/{app_user_id}`: only the fields used; the rest passes unread. */
const subscriberBody = z.object({
  subscriber: z.object({
    original_app_user_id: z.string(),
    first_seen: z.string(),
    entitlements: z.record(entitlement),
    subscriptions: z.record(z.unknown()),
  }),
});

const subscription = z.object({
  status: z.string(),
  auto_renewal_status: z.string(),
  gives_access: z.boolean(),
  starts_at: z.number(),
  current_period_starts_at: z.number().nullable(),
  current_period_ends_at: z.number().nullable(),
  total_revenue_in_usd: z.object({ gross: z.number() }),
});

/** A v2 list page: `items` and the path of the next page (null on the last). */
const listOf = <T extends z.ZodTypeAny>(item: T) => z.object({ items: z.array(item), next_page: z.string().nullable() });
const customer = z.object({ id: z.string(), first_seen_at: z.number().int().nonnegative().max(8.64e15) });

export type Subscriber = { originalAppUserId: string; firstSeen: string; entitlements: Record<string, Entitlement> };
export type CustomerPage = { customers: { id: string; firstSeenAt: string }[]; nextPage: string | null };

/** Pages of one customer's subscriptions followed at most; a customer holds a handful. */
const MAX_SUBSCRIPTION_PAGES = 10;

/**
 * The provider's REST API (docs/integrations.md lists the endpoints and fields). Every call is a
 * GET, so each is retried on 429, 5xx, timeouts and refused connections with backoff. Errors are
 * ProviderError naming the provider and the status; the API key travels in the Authorization
 * header only and no message carries it or the request path.
 */
export class SubprovClient {
  readonly #settings: SubprovSettings;
  readonly #credentials: SubprovCredentials;

  constructor(settings: SubprovSettings, credentials: SubprovCredentials) {
    this.#settings = settings;
    this.#credentials = credentials;
  }

  async #get<T>(path: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const body = await providerJson({
      provider: SUBPROV,
      url: `${this.#settings.baseUrl}${path}`,
      method: "GET",
      headers: { authorization: `Bearer ${this.#credentials.apiKey}` },
      timeoutMs: this.#settings.timeoutMs,
      retry: this.#settings.retry ?? DEFAULT_RETRY,
      signal,
    });
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ProviderError(SUBPROV, 200, `answered with an unexpected body (${parsed.error.issues[0]?.path.join(".") || "root"})`);
    return parsed.data;
  }

  #v2(path: string): string {
    return `/v2/projects/${encodeURIComponent(this.#credentials.providerProjectId)}${path}`;
  }

  /**
   * Whether the provider knows the customer (`GET /v2/projects/{project_id}/customers/{customer_id}`,
   * 404 = unknown). Asked before the v1 subscriber call, which would create an unknown customer.
   * @throws ProviderError for any other failure
   */
  async customerExists(customerId: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.#get(this.#v2(`/customers/${encodeURIComponent(customerId)}`), customer, signal);
      return true;
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return false;
      throw error;
    }
  }

  /**
   * The subscriber and its entitlements (`GET /v1/subscribers/{app_user_id}`); null when the
   * provider does not know the id (404).
   * @throws ProviderError for any other failure
   */
  async subscriber(appUserId: string, signal?: AbortSignal): Promise<Subscriber | null> {
    try {
      const { subscriber } = await this.#get(`/v1/subscribers/${encodeURIComponent(appUserId)}`, subscriberBody, signal);
      return { originalAppUserId: subscriber.original_app_user_id, firstSeen: subscriber.first_seen, entitlements: subscriber.entitlements };
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * A customer's subscriptions with their status, renewal and revenue
   * (`GET /v2/projects/{project_id}/customers/{customer_id}/subscriptions`, pages followed).
   * @throws ProviderError
   */
  async subscriptions(customerId: string, signal?: AbortSignal): Promise<Subscription[]> {
    const found: Subscription[] = [];
    let path: string | null = this.#v2(`/customers/${encodeURIComponent(customerId)}/subscriptions?limit=100`);
    for (let page = 0; path !== null && page < MAX_SUBSCRIPTION_PAGES; page += 1) {
      const body: z.infer<ReturnType<typeof listOf<typeof subscription>>> = await this.#get(path, listOf(subscription), signal);
      for (const item of body.items) found.push({ ...item, total_revenue_usd: item.total_revenue_in_usd.gross });
      path = nextPath(body.next_page);
    }
    return found;
  }

  /**
   * One page of the project's customers, oldest first as the provider lists them
   * (`GET /v2/projects/{project_id}/customers?limit=`, then the `next_page` it returns).
   * @throws ProviderError
   */
  async customers(page: string | null, limit: number, signal?: AbortSignal): Promise<CustomerPage> {
    const path = page ?? this.#v2(`/customers?limit=${limit}`);
    const body = await this.#get(path, listOf(customer), signal);
    return {
      customers: body.items.map((item) => ({ id: item.id, firstSeenAt: new Date(item.first_seen_at).toISOString() })),
      nextPage: nextPath(body.next_page),
    };
  }
}

/**
 * The provider's `next_page` is a path on its own host; anything else (an absolute URL elsewhere)
 * is refused rather than followed with the API key.
 */
function nextPath(next: string | null): string | null {
  if (next === null || next === "") return null;
  if (!next.startsWith("/v2/")) throw new ProviderError(SUBPROV, 200, "answered with a next_page outside its API");
  return next;
}
