import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { FormError } from "./form-error.tsx";
import { slugOf } from "./project-fields.ts";
import { keys, useRefresh } from "./queries.ts";

/**
 * Name and slug are all a new project needs: the colour comes from the team's palette and the
 * settings start at their defaults, changed afterwards in the project's editor, which opens next.
 */
export function NewProjectForm() {
  const { team } = useSession();
  const refresh = useRefresh();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState<string | null>(null);
  const shownSlug = slug ?? slugOf(name);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST("/v1/projects", { body: { team_id: team.id, name: name.trim(), slug: shownSlug } })),
    onSuccess: async (project) => {
      await refresh(keys.projects(team.id));
      void navigate(`/settings/projects/${project.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-project-title">
      <h2 id="new-project-title">New project</h2>
      <label>
        Name
        <input required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Slug
        <input required maxLength={60} pattern="[a-z0-9\-]+" value={shownSlug} onChange={(event) => setSlug(event.target.value)} aria-describedby="slug-hint" />
      </label>
      <span id="slug-hint" className="muted">
        Lowercase letters, digits and dashes; unique in the team.
      </span>
      <FormError error={create.error} />
      <div className="actions">
        <button type="submit" disabled={create.isPending || name.trim() === "" || shownSlug === ""}>
          {create.isPending ? "Creating…" : "Create project"}
        </button>
      </div>
    </form>
  );
}
