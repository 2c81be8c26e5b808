// How a time entry reads in the pages: its times on the account's clock, its duration, what it
// was booked on. Shared by the stopwatch and the timesheet.
import type { EdmRecord } from '../../../odata/edm.js';
import { durationString } from '../../timetracking/sets/time-entries.js';
import { wallClock } from '../clock.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import type { Texts } from '../i18n.js';

export interface Names {
  readonly projects: ReadonlyMap<number, string>;
  readonly tasks: ReadonlyMap<number, string>;
}

export function startOf(entry: EdmRecord): number {
  return (entry.StartTime as Date).getTime();
}

export function isRunning(entry: EdmRecord): boolean {
  return !(entry.EndTime instanceof Date);
}

/** `09:00–12:30`, or the duration alone for a duration entry (TypeID 1). */
export function timeSpan(entry: EdmRecord, timeZone: string): string {
  if (entry.TypeID === 1) return '';
  const start = wallClock(startOf(entry), timeZone).time;
  return isRunning(entry) ? `${start}–…` : `${start}–${wallClock((entry.EndTime as Date).getTime(), timeZone).time}`;
}

export function bookedOn(entry: EdmRecord, names: Names, t: Texts): Html {
  const project = names.projects.get(entry.ProjectID as number) ?? `#${String(entry.ProjectID)}`;
  const task = entry.TaskID === null ? undefined : names.tasks.get(entry.TaskID as number);
  return html`<span class="project">${project}</span>${task === undefined ? '' : html` · <span class="task">${task}</span>`}${entry.Billable === true ? '' : html` <span class="tag">${t.nonBillable}</span>`}`;
}

export function duration(entry: EdmRecord): string {
  return durationString(entry.DurationSeconds as number);
}
