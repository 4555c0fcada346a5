import type { JobRun } from "./job-types.ts";

const number = new Intl.NumberFormat();

/**
 * How far a run got: a bar when the total is known, the count and the worker's message. A run
 * that finished shows where it stopped, which says how much a cancel or failure left undone.
 */
export function RunProgress({ run }: { run: JobRun }) {
  const { processed, total, message } = run.progress;
  if (run.status === "pending") return <span className="muted">Waiting for a worker</span>;
  const counted = total === null ? `${number.format(processed)} done` : `${number.format(processed)} of ${number.format(total)}`;
  return (
    <div className="run-progress">
      {total !== null && total > 0 && <progress max={total} value={Math.min(processed, total)} aria-label={`${counted} processed`} />}
      <span>{counted}</span>
      {message && <span className="muted">{message}</span>}
    </div>
  );
}
