import { useState } from "react";
import { isActive, typeLabel, type JobRun } from "./job-types.ts";
import { useCancelRun } from "./queries.ts";

/**
 * Cancelling asks first, in place: a run stopped halfway cannot be resumed. The API's refusal
 * (the run is no longer running) is shown as it says it, and stays after the list refreshes
 * without the button.
 */
export function CancelRun({ run }: { run: JobRun }) {
  const [confirming, setConfirming] = useState(false);
  const cancel = useCancelRun();
  const name = typeLabel(run.job_type);

  return (
    <div className="cancel-run">
      {confirming ? (
        <div role="group" aria-label={`Cancel the ${name} run?`} className="confirm">
          <span>Cancel this run?</span>
          <button type="button" className="danger-button" disabled={cancel.isPending} onClick={() => cancel.mutate(run.id, { onSettled: () => setConfirming(false) })}>
            {cancel.isPending ? "Cancelling…" : "Yes, cancel it"}
          </button>
          <button type="button" className="quiet" onClick={() => setConfirming(false)} autoFocus>
            Keep it running
          </button>
        </div>
      ) : (
        isActive(run) && (
          <button type="button" className="quiet" onClick={() => setConfirming(true)} aria-label={`Cancel the ${name} run`}>
            Cancel…
          </button>
        )
      )}
      {cancel.error && (
        <p className="state error" role="alert">
          Could not cancel: {cancel.error.message}
        </p>
      )}
    </div>
  );
}
