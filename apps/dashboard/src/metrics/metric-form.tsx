import { useId, useState, type FormEvent } from "react";
import type { MetricDefinition, MetricFields } from "./queries.ts";

const SLUG = /^[a-z0-9-]+$/;

/** A slug offered from the name until the slug is typed in: "Checkout v2" becomes "checkout-v2". */
export const slugFrom = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");

const nullIfBlank = (value: string) => (value.trim() === "" ? null : value);

/** The attribute schema as typed: empty is none; anything else must be a JSON object. */
function parseSchema(text: string): { value: Record<string, unknown> | null } | { problem: string } {
  if (text.trim() === "") return { value: null };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return { value: parsed as Record<string, unknown> };
    return { problem: "The attribute schema must be a JSON object." };
  } catch (error) {
    return { problem: `The attribute schema is not valid JSON: ${(error as Error).message}` };
  }
}

type Props = {
  /** The definition being changed; without it the form creates one, and only then is the slug editable. */
  initial?: MetricDefinition;
  submitLabel: string;
  pending: boolean;
  /** The API's refusal of the last submit (a taken slug, say), shown above the buttons. */
  failure: string | undefined;
  onSubmit: (slug: string, fields: MetricFields) => void;
  onCancel: () => void;
};

/** Name, slug, description, documentation (Markdown) and the attributes' JSON schema of a metric. */
export function MetricForm({ initial, submitLabel, pending, failure, onSubmit, onCancel }: Props) {
  const id = useId();
  const [name, setName] = useState(initial?.name ?? "");
  const [slug, setSlug] = useState(initial?.slug ?? "");
  const [slugTouched, setSlugTouched] = useState(initial !== undefined);
  const [description, setDescription] = useState(initial?.description ?? "");
  const [documentation, setDocumentation] = useState(initial?.documentation ?? "");
  const [schema, setSchema] = useState(initial?.schema_definition ? JSON.stringify(initial.schema_definition, null, 2) : "");
  const [problem, setProblem] = useState<string>();
  const shownSlug = slugTouched ? slug : slugFrom(name);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === "") return setProblem("A metric needs a name.");
    if (!SLUG.test(shownSlug)) return setProblem("The slug may hold only lower-case letters, digits and dashes.");
    const parsed = parseSchema(schema);
    if ("problem" in parsed) return setProblem(parsed.problem);
    setProblem(undefined);
    onSubmit(shownSlug, { name: name.trim(), description: nullIfBlank(description), documentation: nullIfBlank(documentation), schema_definition: parsed.value });
  };

  const message = problem ?? failure;
  return (
    <form className="card definition-form" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-name`}>Name</label>
      <input id={`${id}-name`} value={name} onChange={(event) => setName(event.target.value)} maxLength={100} required />

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
        pattern="[a-z0-9\-]+"
        required
      />
      <p id={`${id}-slug-hint`} className="hint">
        {initial ? (
          "A metric's slug does not change: its events are named after it."
        ) : (
          <>
            Events named <code>metric:{shownSlug || "<slug>"}:&lt;phase&gt;</code> count for this metric.
          </>
        )}
      </p>

      <label htmlFor={`${id}-description`}>Description</label>
      <input id={`${id}-description`} value={description} onChange={(event) => setDescription(event.target.value)} maxLength={2000} />

      <label htmlFor={`${id}-documentation`}>Documentation (Markdown)</label>
      <textarea id={`${id}-documentation`} value={documentation} onChange={(event) => setDocumentation(event.target.value)} rows={5} maxLength={50_000} />

      <label htmlFor={`${id}-schema`}>Attribute schema (JSON, optional)</label>
      <textarea id={`${id}-schema`} className="code" value={schema} onChange={(event) => setSchema(event.target.value)} rows={4} spellCheck={false} />

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
