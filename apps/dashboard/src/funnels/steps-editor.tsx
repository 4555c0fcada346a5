import { useId, useState } from "react";
import { MAX_STEPS, moved, newDraft, type StepDraft } from "./step-drafts.ts";

type Props = { steps: StepDraft[]; onChange: (steps: StepDraft[]) => void };

/**
 * The ordered steps of a funnel. Each is named, and matches events of the message
 * `step:<step name>`, of a screen, or both. Order changes with buttons, one place at a time, so it
 * works from the keyboard and reads out as it changes.
 */
export function StepsEditor({ steps, onChange }: Props) {
  const id = useId();
  // Said aloud after a move: the button keeps the focus, but the step it belongs to changed place.
  const [announcement, setAnnouncement] = useState("");
  const move = (index: number, offset: -1 | 1) => {
    const target = index + offset;
    if (target < 0 || target >= steps.length) return;
    onChange(moved(steps, index, offset));
    setAnnouncement(`${steps[index]?.name.trim() || "The step"} is now step ${target + 1} of ${steps.length}.`);
  };
  const change = (index: number, fields: Partial<StepDraft>) => onChange(steps.map((step, at) => (at === index ? { ...step, ...fields } : step)));
  return (
    <fieldset className="steps-editor">
      <legend>Steps, in order</legend>
      <ol>
        {steps.map((step, index) => {
          const number = index + 1;
          const field = (name: string) => `${id}-${step.key}-${name}`;
          return (
            <li key={step.key} className="step-draft">
              <fieldset>
                <legend>Step {number}</legend>
                <div className="step-fields">
                  <label htmlFor={field("name")}>
                    <span className="sr-only">Step {number} </span>Name
                  </label>
                  <input id={field("name")} value={step.name} onChange={(event) => change(index, { name: event.target.value })} maxLength={100} />
                  <label htmlFor={field("step")}>
                    <span className="sr-only">Step {number} </span>Event <span className="muted">(message step:…)</span>
                  </label>
                  <input id={field("step")} value={step.stepName} onChange={(event) => change(index, { stepName: event.target.value })} placeholder="e.g. signup" />
                  <label htmlFor={field("screen")}>
                    <span className="sr-only">Step {number} </span>Screen <span className="muted">(screen name)</span>
                  </label>
                  <input id={field("screen")} value={step.screenName} onChange={(event) => change(index, { screenName: event.target.value })} placeholder="e.g. Paywall" />
                </div>
                <div className="buttons">
                  <button type="button" className="secondary" onClick={() => move(index, -1)} aria-disabled={index === 0} aria-label={`Move step ${number} up`}>
                    ↑ Up
                  </button>
                  <button type="button" className="secondary" onClick={() => move(index, 1)} aria-disabled={index === steps.length - 1} aria-label={`Move step ${number} down`}>
                    ↓ Down
                  </button>
                  <button type="button" className="danger" onClick={() => onChange(steps.filter((_, at) => at !== index))} disabled={steps.length === 1} aria-label={`Remove step ${number}`}>
                    Remove
                  </button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <button type="button" className="secondary" onClick={() => onChange([...steps, newDraft()])} disabled={steps.length >= MAX_STEPS}>
        Add step
      </button>
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
      {steps.length >= MAX_STEPS && <p className="muted">A funnel has at most {MAX_STEPS} steps.</p>}
    </fieldset>
  );
}
