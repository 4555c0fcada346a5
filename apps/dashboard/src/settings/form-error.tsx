import { messageOf } from "./format.ts";

/** What the API said when it refused a change, next to the form that asked for it. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert">
      {messageOf(error)}
    </p>
  );
}
