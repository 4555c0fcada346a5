import { Segmented } from "../ui/segmented.tsx";
import { DATA_MODES, RANGES, type DataMode, type RangeKey } from "./window.ts";

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
