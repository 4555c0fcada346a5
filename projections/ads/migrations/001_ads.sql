-- The ad network's campaigns, ad groups, keywords and ads as each project's last adnet_sync pulled
-- them, built from the DOMAIN stream (`<ns>.d.ads.<project>`). Every value comes from the facts,
-- so a replay rebuilds identical rows.

-- One row per (project, level, network id). `spend` is the synced period's total in the
-- account's currency (ad_accounts.currency); sync_id names the pull that last reported it.
create table ad_entities (
  project_id uuid not null,
  level text not null,
  id text not null,
  campaign_id text not null,
  ad_group_id text,
  name text,
  status text,
  start_date date,
  spend numeric,
  sync_id text not null,
  primary key (project_id, level, id)
);
-- A pull's completion drops the entities it no longer reported.
create index ad_entities_by_sync on ad_entities (project_id, sync_id);

-- The account behind a project's last completed pull: its currency and when it was pulled.
create table ad_accounts (
  project_id uuid primary key,
  team_id uuid not null,
  currency text not null,
  synced_at timestamptz not null,
  sync_id text not null,
  period_start date not null,
  period_end date not null
);
