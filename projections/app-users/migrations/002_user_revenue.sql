-- A user's lifetime revenue in USD cents from the subscription provider, and when it was last
-- synced (SPEC App user: "used by ads queries"; never shown on the user itself).
alter table app_users add column lifetime_revenue_usd_cents bigint not null default 0;
alter table app_users add column revenue_synced_at timestamptz;
