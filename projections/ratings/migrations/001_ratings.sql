-- One row per app and UTC day: the day's snapshot as last recorded (a later run of the same day
-- replaces it whole). `unlisted`: storefronts asked that do not list the app.
create table app_rating_days (
  app_id uuid not null,
  snapshot_date date not null,
  synced_at timestamptz not null,
  unlisted text[] not null,
  primary key (app_id, snapshot_date)
);

-- One row per app, day and storefront listing the app: the store's numbers that day.
create table app_rating_countries (
  app_id uuid not null,
  snapshot_date date not null,
  country text not null,
  store_id text not null,
  average_rating double precision,
  rating_count bigint not null,
  current_version_rating double precision,
  current_version_rating_count bigint not null,
  version text,
  primary key (app_id, snapshot_date, country)
);

-- One row per app: the worldwide numbers of its latest day and the count's change since the day
-- before that, worked out when a snapshot is applied, so app lists read one row per app.
create table app_ratings (
  app_id uuid primary key,
  latest_date date not null,
  synced_at timestamptz not null,
  worldwide_average_rating double precision,
  worldwide_rating_count bigint not null,
  worldwide_current_version_rating double precision,
  worldwide_current_version_rating_count bigint not null,
  worldwide_rating_count_delta bigint
);
