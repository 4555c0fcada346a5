import type { FunnelStep } from "./queries.ts";

/** A step as edited: text fields as typed, and a key that follows the step when it moves. */
export type StepDraft = { key: number; name: string; stepName: string; screenName: string };

export const MAX_STEPS = 20;

let nextKey = 0;
export const newDraft = (fields: Partial<Omit<StepDraft, "key">> = {}): StepDraft => ({ key: nextKey++, name: "", stepName: "", screenName: "", ...fields });

export const draftsOf = (steps: readonly FunnelStep[]): StepDraft[] =>
  steps.map((step) => newDraft({ name: step.name, stepName: step.event_filter.step_name ?? "", screenName: step.event_filter.screen_name ?? "" }));

/** The step the API stores: an empty filter field is left out rather than matching an empty name. */
export function stepOf(draft: StepDraft): FunnelStep {
  const filter: FunnelStep["event_filter"] = {};
  if (draft.stepName.trim() !== "") filter.step_name = draft.stepName.trim();
  if (draft.screenName.trim() !== "") filter.screen_name = draft.screenName.trim();
  return { name: draft.name.trim(), event_filter: filter };
}

/** What is wrong with the steps, said for the person editing them, or undefined when they can be saved. */
export function stepsProblem(drafts: readonly StepDraft[]): string | undefined {
  if (drafts.length === 0) return "A funnel needs at least one step.";
  if (drafts.length > MAX_STEPS) return `A funnel has at most ${MAX_STEPS} steps.`;
  const unnamed = drafts.findIndex((draft) => draft.name.trim() === "");
  if (unnamed >= 0) return `Step ${unnamed + 1} needs a name.`;
  const unmatched = drafts.findIndex((draft) => draft.stepName.trim() === "" && draft.screenName.trim() === "");
  if (unmatched >= 0) return `Step ${unmatched + 1} needs a step name, a screen name or both, to know which events it counts.`;
  return undefined;
}

/** `drafts` with the one at `index` moved by `offset` places (-1 up, 1 down); unchanged at the ends. */
export function moved<T>(drafts: readonly T[], index: number, offset: -1 | 1): T[] {
  const target = index + offset;
  if (target < 0 || target >= drafts.length) return [...drafts];
  const next = [...drafts];
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}
