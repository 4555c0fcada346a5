-- The ads routes (projections/ads/queries.ts) break a project's search-ads attributed users down
-- by campaign, ad group, keyword and ad. The attribution ids are copied out of `properties` into
-- generated columns, set only for `attribution_source = adnet_search`, so one partial index can
-- hold everything those queries read: with 200k attributed users a breakdown is an index-only
-- scan of the project's (or campaign's) entries instead of 200k heap rows with their jsonb.
alter table app_users
  add column ads_campaign_id text generated always as (
    case when properties ->> 'attribution_source' = 'adnet_search' then properties ->> 'adn_campaign_id' end) stored,
  add column ads_ad_group_id text generated always as (
    case when properties ->> 'attribution_source' = 'adnet_search' then properties ->> 'adn_ad_group_id' end) stored,
  add column ads_keyword_id text generated always as (
    case when properties ->> 'attribution_source' = 'adnet_search' then properties ->> 'adn_keyword_id' end) stored,
  add column ads_ad_id text generated always as (
    case when properties ->> 'attribution_source' = 'adnet_search' then properties ->> 'adn_ad_id' end) stored;

-- Campaigns of a project (prefix project_id), ad groups of a campaign (+ campaign), leaves of an
-- ad group (+ ad group). The included columns are the window, the revenue and the billing status
-- (retained = paid), and user_id for the app filter's join.
create index app_users_ads on app_users (project_id, ads_campaign_id, ads_ad_group_id)
  include (ads_keyword_id, ads_ad_id, first_seen_at, lifetime_revenue_usd_cents, billing_status, user_id)
  where ads_campaign_id is not null;

-- `revenue_synced_at` of the ads answers: the latest revenue sync of the project.
create index app_users_revenue_synced on app_users (project_id, revenue_synced_at desc) where revenue_synced_at is not null;
