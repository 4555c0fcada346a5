import { useState, type FormEvent } from "react";
import { FormError } from "./form-error.tsx";
import type { Integration, Provider } from "./integration-types.ts";

type Props = {
  provider: Provider;
  /** The stored integration when editing; its sensitive values arrive masked and are never put back in a field. */
  integration?: Integration;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (config: Record<string, string>) => void;
  onCancel?: () => void;
};

/**
 * The provider's config fields, as its registry entry describes them. Sensitive ones are password
 * inputs that start empty: left empty when editing, the stored value stays (only what was typed
 * is sent, and the API merges it over the stored config).
 */
export function ConfigForm({ provider, integration, submitLabel, pending, error, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(provider.configFields.map((field) => [field.key, field.sensitive ? "" : (integration?.config[field.key] ?? "")])),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const config: Record<string, string> = {};
    for (const field of provider.configFields) {
      const value = (values[field.key] ?? "").trim();
      if (value === "") continue;
      if (integration && !field.sensitive && value === integration.config[field.key]) continue;
      config[field.key] = value;
    }
    onSubmit(config);
  };
  const editing = integration !== undefined;

  return (
    <form className="stack" onSubmit={submit}>
      {provider.configFields.map((field) => {
        const id = `${provider.id}-${field.key}`;
        const stored = integration?.config[field.key];
        return (
          <div key={field.key} className="field">
            <label htmlFor={id}>
              {field.label}
              {field.required && !editing && <span aria-hidden="true"> *</span>}
            </label>
            <input
              id={id}
              type={field.sensitive ? "password" : "text"}
              autoComplete={field.sensitive ? "new-password" : "off"}
              required={field.required && !(editing && field.sensitive)}
              placeholder={editing && field.sensitive ? `unchanged (${stored ?? "not set"})` : field.placeholder}
              value={values[field.key] ?? ""}
              onChange={(event) => setValues((current) => ({ ...current, [field.key]: event.target.value }))}
              aria-describedby={field.description ? `${id}-help` : undefined}
              spellCheck={false}
            />
            {field.description && (
              <span id={`${id}-help`} className="muted">
                {field.description}
              </span>
            )}
          </div>
        );
      })}
      <FormError error={error} />
      <div className="actions">
        <button type="submit" disabled={pending}>
          {pending ? "Saving…" : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
