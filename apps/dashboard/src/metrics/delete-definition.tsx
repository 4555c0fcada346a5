import { useState } from "react";

type Props = { noun: string; name: string; consequence: string; pending: boolean; failure: string | undefined; onDelete: () => void };

/** A delete that asks once more in the page (not in a browser dialog), saying what deleting does. */
export function DeleteDefinition({ noun, name, consequence, pending, failure, onDelete }: Props) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={`Delete ${name}?`}>
      <p>
        Delete the {noun} <strong>{name}</strong>? {consequence}
      </p>
      {failure && (
        <p className="problem" role="alert">
          {failure}
        </p>
      )}
      <div className="buttons">
        <button type="button" className="danger" onClick={onDelete} disabled={pending}>
          {pending ? "Deleting…" : `Delete ${noun}`}
        </button>
        {/* The safe answer has the focus: Enter on the question keeps the definition. */}
        <button type="button" className="secondary" onClick={() => setAsking(false)} autoFocus>
          Keep it
        </button>
      </div>
    </div>
  );
}
