create table invitations (
  id uuid primary key,
  team_id uuid not null,
  email text not null,
  role text not null,
  token_hash text not null unique,
  invited_by uuid not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  created_at timestamptz not null
);
create index invitations_by_team on invitations (team_id, created_at);
create index invitations_by_team_email on invitations (team_id, email);
