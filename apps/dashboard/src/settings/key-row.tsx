import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { ConfirmButton } from "./confirm-button.tsx";
import { FormError } from "./form-error.tsx";
import { formatDate, maskedSecret } from "./format.ts";
import { keys, useRefresh, type ApiKey } from "./queries.ts";

/** One API key in a list: what it is, who made it, when it was used, and revoking it. */
export function KeyRow({ apiKey, details }: { apiKey: ApiKey; details?: boolean }) {
  const { team } = useSession();
  const refresh = useRefresh();
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE("/v1/auth/keys/{id}", { params: { path: { id: apiKey.id } } })),
    onSuccess: () => refresh(keys.apiKeys(team.id)),
  });
  const expired = apiKey.expires_at !== null && Date.parse(apiKey.expires_at) < Date.now();
  return (
    <li className="row" data-key={apiKey.name}>
      <div className="row-main">
        <span className="row-title">
          {apiKey.name} {details && <span className="pill">{apiKey.key_type}</span>}
          {expired && <span className="pill warn">expired</span>}
        </span>
        <code className="secret">{maskedSecret(apiKey.secret)}</code>
        <span className="muted">
          {details && apiKey.app_name && <>app {apiKey.app_name} · </>}
          created {formatDate(apiKey.created_at)}
          {apiKey.created_by_email && <> by {apiKey.created_by_email}</>} · {apiKey.last_used_at ? `last used ${formatDate(apiKey.last_used_at)}` : "never used"}
          {apiKey.expires_at && !expired && <> · expires {formatDate(apiKey.expires_at)}</>}
        </span>
        {details && <span className="muted permissions">{apiKey.permissions.join(", ")}</span>}
        <FormError error={revoke.error} />
      </div>
      <ConfirmButton
        label="Revoke"
        name={`Revoke key ${apiKey.name}`}
        question={`Revoke ${apiKey.name}? Anything using it is refused from now on.`}
        confirmLabel="Yes, revoke"
        pending={revoke.isPending}
        onConfirm={() => revoke.mutate()}
      />
    </li>
  );
}
