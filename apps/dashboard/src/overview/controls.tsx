import { DATA_MODES, RANGES, type DataMode, type RangeKey } from "./window.ts";

type Option<T extends string> = { value: T; label: string };

/** A set of radio buttons drawn as a segmented control: arrow keys move between them natively. */
function Segmented<T extends string>({ legend, name, options, value, onChange }: { legend: string; name: string; options: Option<T>[]; value: T; onChange: (value: T) => void }) {
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

const rangeOptions = (Object.keys(RANGES) as RangeKey[]).map((value) => ({ value, label: RANGES[value].label }));
const modeLabels: Record<DataMode, string> = { production: "Production", development: "Development", all: "All" };
const modeOptions = DATA_MODES.map((value) => ({ value, label: modeLabels[value] }));

export function RangePicker({ value, onChange }: { value: RangeKey; onChange: (range: RangeKey) => void }) {
  return <Segmented legend="Time range" name="range" options={rangeOptions} value={value} onChange={onChange} />;
}

/** The API's `data_mode`: production events only (is_dev false), development only, or both. */
export function DataModeSwitch({ value, onChange }: { value: DataMode; onChange: (mode: DataMode) => void }) {
  return <Segmented legend="Data" name="data_mode" options={modeOptions} value={value} onChange={onChange} />;
}
