// A bar chart of a report as server-rendered SVG: one bar per period (or per group over the whole
// range), billable hours at the bottom and non-billable hours stacked on top, with a scale of
// hours. Accessible as an image with a title and a description (role="img"); the numbers
// themselves are in the data table the page shows beside it. Colours come from the stylesheet
// (classes), as the pages' CSP allows no inline styles.
import { html } from './html.js';
import type { Html } from './html.js';

export interface Bar {
  readonly label: string;
  readonly billableSeconds: number;
  readonly nonBillableSeconds: number;
}

export interface ChartTexts {
  readonly title: string;
  readonly description: string;
  readonly billable: string;
  readonly nonBillable: string;
  /** Hours as the page writes them (`12,50`). */
  readonly hours: (seconds: number) => string;
  /** A scale value in whole hours as the page writes them (`1.000`). */
  readonly tick: (hours: number) => string;
}

const HEIGHT = 260;
const TOP = 12;
const LEFT = 56;
const BAR = 34;
const GAP = 22;
const LABEL_SPACE = 64;

/** A round scale top at or above the largest bar: 1, 2, 5 x 10^n hours. */
function scaleTop(hours: number): number {
  if (hours <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(hours));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= hours) as number;
}

export function barChart(id: string, bars: readonly Bar[], texts: ChartTexts): Html {
  const most = Math.max(0, ...bars.map((bar) => (bar.billableSeconds + bar.nonBillableSeconds) / 3600));
  const top = scaleTop(most);
  const plot = HEIGHT - TOP - LABEL_SPACE;
  const y = (hours: number) => TOP + plot - (hours / top) * plot;
  // Room on the right for the last label, which hangs to the right of its bar.
  const width = LEFT + Math.max(1, bars.length) * (BAR + GAP) + GAP + 60;
  const ticks = [0, 0.2, 0.4, 0.6, 0.8, 1].map((share) => share * top);
  return html`<svg class="chart" id="${id}" role="img" aria-labelledby="${id}-title ${id}-desc" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg">
    <title id="${id}-title">${texts.title}</title>
    <desc id="${id}-desc">${texts.description}</desc>
    ${ticks.map((hours) => html`<line class="grid" x1="${LEFT}" x2="${width - GAP / 2}" y1="${y(hours).toFixed(1)}" y2="${y(hours).toFixed(1)}"></line>
      <text class="tick" x="${LEFT - 6}" y="${(y(hours) + 4).toFixed(1)}" text-anchor="end">${texts.tick(hours)}</text>`)}
    ${bars.map((bar, i) => {
      const x = LEFT + GAP + i * (BAR + GAP);
      const billable = bar.billableSeconds / 3600;
      const other = bar.nonBillableSeconds / 3600;
      const labelY = HEIGHT - LABEL_SPACE + 14;
      return html`<g class="bar" data-label="${bar.label}">
        <rect class="billable" x="${x}" y="${y(billable).toFixed(1)}" width="${BAR}" height="${(y(0) - y(billable)).toFixed(1)}"><title>${bar.label}: ${texts.billable} ${texts.hours(bar.billableSeconds)}</title></rect>
        <rect class="non-billable" x="${x}" y="${y(billable + other).toFixed(1)}" width="${BAR}" height="${(y(billable) - y(billable + other)).toFixed(1)}"><title>${bar.label}: ${texts.nonBillable} ${texts.hours(bar.nonBillableSeconds)}</title></rect>
        <text class="label" x="${x + BAR / 2}" y="${labelY}" text-anchor="start" transform="rotate(35 ${x + BAR / 2} ${labelY})">${bar.label}</text>
      </g>`;
    })}
  </svg>`;
}
