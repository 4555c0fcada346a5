import { Empty } from "../ui/states.tsx";
import type { Aggregation } from "./queries.ts";

const number = new Intl.NumberFormat();

/** The most frequent errors of failed runs (the API's top 20), each with its share of the failures listed. */
export function ErrorBreakdown({ aggregation }: { aggregation: Aggregation }) {
  const errors = aggregation.error_breakdown;
  const listed = errors.reduce((sum, row) => sum + row.count, 0);
  return (
    <section className="card" aria-labelledby="errors-title">
      <h2 id="errors-title">Errors of failed runs</h2>
      {errors.length === 0 ? (
        <Empty>{aggregation.fail_count === 0 ? "No run failed in this range." : "The failed runs reported no error (the error attribute)."}</Empty>
      ) : (
        <table className="error-table">
          <thead>
            <tr>
              <th scope="col">Error</th>
              <th scope="col" className="num">
                Runs
              </th>
            </tr>
          </thead>
          <tbody>
            {errors.map((row) => (
              <tr key={row.error} data-error={row.error}>
                <th scope="row">
                  <span className="error-text">{row.error}</span>
                  <span className="share" style={{ width: `${(row.count / listed) * 100}%` }} aria-hidden="true" />
                </th>
                <td className="num">{number.format(row.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
