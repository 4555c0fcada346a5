import { useId, useState, type FormEvent } from "react";
import { slugFrom } from "../metrics/metric-form.tsx";
import type { FunnelDefinition, FunnelFields } from "./queries.ts";
import { draftsOf, newDraft, stepOf, stepsProblem, type StepDraft } from "./step-drafts.ts";
import { StepsEditor } from "./steps-editor.tsx";

const SLUG = /^[a-z0-9-]+$/;

type Props = {
  /** The funnel being changed; without it the form creates one, and only then is the slug editable. */
  initial?: FunnelDefinition;
  submitLabel: string;
  pending: boolean;
  failure: string | undefined;
  onSubmit: (slug: string, fields: FunnelFields) => void;
  onCancel: () => void;
};

/** A funnel's name, slug, description and ordered steps, checked here before the API sees them. */
export function FunnelForm({ initial, submitLabel, pending, failure, onSubmit, onCancel }: Props) {
  const id = useId();
  const [name, setName] = useState(initial?.name ?? "");
  const [slug, setSlug] = useState(initial?.slug ?? "");
  const [slugTouched, setSlugTouched] = useState(initial !== undefined);
  const [description, setDescription] = useState(initial?.description ?? "");
  const [steps, setSteps] = useState<StepDraft[]>(() => (initial ? draftsOf(initial.steps) : [newDraft(), newDraft()]));
  const [problem, setProblem] = useState<string>();
  const shownSlug = slugTouched ? slug : slugFrom(name);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found =
      name.trim() === "" ? "A funnel needs a name." : !SLUG.test(shownSlug) ? "The slug may hold only lower-case letters, digits and dashes." : stepsProblem(steps);
    setProblem(found);
    if (found) return;
    onSubmit(shownSlug, { name: name.trim(), description: description.trim() === "" ? null : description, steps: steps.map(stepOf) });
  };

  // A problem found on submit is cleared by the next edit: it may be fixed, and submit checks again.
  const edit =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      setProblem(undefined);
      set(value);
    };
  const message = problem ?? failure;
  return (
    <form className="card definition-form" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-name`}>Name</label>
      <input id={`${id}-name`} value={name} onChange={(event) => edit(setName)(event.target.value)} maxLength={100} />

      <label htmlFor={`${id}-slug`}>Slug</label>
      <input
        id={`${id}-slug`}
        value={shownSlug}
        onChange={(event) => {
          setSlugTouched(true);
          setSlug(event.target.value);
        }}
        readOnly={initial !== undefined}
        aria-describedby={`${id}-slug-hint`}
      />
      <p id={`${id}-slug-hint`} className="hint">
        {initial ? "A funnel's slug does not change: links and API clients use it." : "Lower-case letters, digits and dashes; the funnel's address."}
      </p>

      <label htmlFor={`${id}-description`}>Description</label>
      <input id={`${id}-description`} value={description} onChange={(event) => setDescription(event.target.value)} maxLength={2000} />

      <StepsEditor steps={steps} onChange={edit(setSteps)} />

      {message && (
        <p className="problem" role="alert">
          {message}
        </p>
      )}
      <div className="buttons">
        <button type="submit" disabled={pending}>
          {pending ? "Saving…" : submitLabel}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
