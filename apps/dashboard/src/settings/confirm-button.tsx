import { useState, type ReactNode } from "react";

type Props = {
  /** What the button says, e.g. "Delete". */
  label: string;
  /** The accessible name when the label alone is ambiguous in a list: "Delete project Shop". */
  name?: string;
  /** What is about to happen, said before it happens. */
  question: string;
  confirmLabel: string;
  pending: boolean;
  onConfirm: () => void;
  /** A choice that belongs to the question, e.g. "also revoke their keys". */
  extra?: ReactNode;
};

/**
 * A destructive action in two steps, in place: the first press asks, the second does it. No modal,
 * so the question sits next to what it is about, also on a phone, and Cancel takes the focus first.
 */
export function ConfirmButton({ label, name, question, confirmLabel, pending, onConfirm, extra }: Props) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger-outline" aria-label={name} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      {extra}
      <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
        {pending ? "Working…" : confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)} autoFocus>
        Cancel
      </button>
    </span>
  );
}
