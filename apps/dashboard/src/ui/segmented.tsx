export type Option<T extends string> = { value: T; label: string };

/** A set of radio buttons drawn as a segmented control: arrow keys move between them natively. */
export function Segmented<T extends string>({ legend, name, options, value, onChange }: { legend: string; name: string; options: Option<T>[]; value: T; onChange: (value: T) => void }) {
  return (
    <fieldset className="segmented">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className={option.value === value ? "on" : undefined}>
          <input type="radio" name={name} value={option.value} checked={option.value === value} onChange={() => onChange(option.value)} />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
