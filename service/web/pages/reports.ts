// Reports for everyone signed in: hours by project, client, employee or task, per week, per month
// or over the whole range, billable against non-billable, as a bar chart (SVG) with the data
// table beside it; that table (/reports/table) and the filtered entries behind the report
// (/reports/export) as CSV or XLSX. Administrators see the whole account, standard users their
// own entries (the reports module's scope); a standard user who names another employee is
// refused (404). Every number comes from service/reports/.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REPORT_GROUPS, REPORT_PERIODS, buildReport, hoursText } from '../../reports/report-query.js';
import type { Report, ReportGroup, ReportPeriod } from '../../reports/report-query.js';
import { loadReportAccount, scopeOf } from '../../reports/report-scope.js';
import type { EntryFilter } from '../../reports/report-scope.js';
import { wallClock } from '../clock.js';
import { downloadLinks, exportFormatOf, sendExport, sendReportFile } from '../downloads.js';
import { filterFields, filterFormOf, filterOf, filterQuery, namesOnlyVisible, withDefaultRange } from '../entry-filters.js';
import type { FilterForm } from '../entry-filters.js';
import { formText } from '../form-values.js';
import { flag, html } from '../html.js';
import type { Html } from '../html.js';
import { fill } from '../i18n.js';
import type { Texts } from '../i18n.js';
import { field, layout } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage, signedIn } from '../plugin.js';
import type { WebSession } from '../sessions.js';
import { barChart } from '../report-chart.js';
import type { Bar } from '../report-chart.js';

const GROUP_TEXT: Readonly<Record<ReportGroup, keyof Texts>> = { project: 'groupProject', client: 'groupClient', employee: 'groupEmployee', task: 'groupTask' };
const PERIOD_TEXT: Readonly<Record<ReportPeriod, keyof Texts>> = { week: 'periodWeek', month: 'periodMonth', total: 'periodTotal' };

/** A decimal text (`12.50`, as the reports module gives hours and money) as the page's language writes it: `12,50`. */
function decimalIn(ctx: PageContext, text: string): string {
  return ctx.lang === 'de' ? text.replace('.', ',') : text;
}

/** Hours as the page's language writes them: `12,50` or `12.50`. */
export function hoursIn(ctx: PageContext, seconds: number): string {
  return decimalIn(ctx, hoursText(seconds));
}

function periodLabel(ctx: PageContext, period: string | null): string {
  if (period === null) return ctx.t.periodTotal;
  const locale = ctx.lang === 'de' ? 'de-DE' : 'en-GB';
  if (period.length === 7) return new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${period}-15T12:00:00Z`));
  return fill(ctx.t.weekOf, { date: dayOf(ctx, period, { year: 'numeric' }) });
}

/**
 * A day as the page's language writes it: `02.11.2026` in German; in English with the month's
 * name (`2 Nov 2026`), as `02/11` reads as the 11th of February to many.
 */
function dayOf(ctx: PageContext, day: string, extra: Intl.DateTimeFormatOptions = {}): string {
  const options: Intl.DateTimeFormatOptions = ctx.lang === 'de' ? { day: '2-digit', month: '2-digit' } : { day: 'numeric', month: 'short' };
  return new Intl.DateTimeFormat(ctx.lang === 'de' ? 'de-DE' : 'en-GB', { ...options, ...extra, timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
}

/** A period as short as a bar's label can be: `12.10.` or `12 Oct` (the week's Monday), `Okt. 2026`. */
function shortPeriod(ctx: PageContext, period: string | null): string {
  if (period === null || period.length === 7) return periodLabel(ctx, period);
  return dayOf(ctx, period);
}

function barsOf(ctx: PageContext, report: Report): Bar[] {
  const bars = new Map<string, { label: string; billableSeconds: number; nonBillableSeconds: number }>();
  for (const line of report.lines) {
    const id = report.period === 'total' ? `${line.key ?? ''}\u0000${line.label}` : line.period ?? '';
    const label = report.period === 'total' ? line.label || ctx.t.withoutName : shortPeriod(ctx, line.period);
    const bar = bars.get(id) ?? { label, billableSeconds: 0, nonBillableSeconds: 0 };
    bar.billableSeconds += line.billableSeconds;
    bar.nonBillableSeconds += line.nonBillableSeconds;
    bars.set(id, bar);
  }
  return [...bars.values()];
}

export function registerReportPages(web: FastifyInstance, deps: WebDependencies): void {
  const { administration, reports } = deps;

  /** The request's filter in the caller's scope; undefined when an answer (404, 400, 422) was sent. */
  async function scopedFilter(request: FastifyRequest, reply: FastifyReply, session: WebSession, form: FilterForm,
    page: (errors: Record<string, string>) => Promise<string>): Promise<EntryFilter | undefined> {
    const { caller } = session;
    const notFound = () => void sendPage(reply, 404, layout(request.page, request.page.t.reports, html``, { error: request.page.t.notFound }));
    // A standard user's reports are their own: naming another employee is asking for what is not there.
    if (!caller.isAdmin && form.user !== '' && form.user !== String(caller.userId)) return notFound();
    const parsed = filterOf(form, request.page);
    if ('filter' in parsed) {
      if (await namesOnlyVisible(administration, caller, parsed.filter)) return parsed.filter;
      return notFound();
    }
    if (parsed.malformed) void sendPage(reply, 400, layout(request.page, request.page.t.reports, html``, { error: request.page.t.invalidFilter }));
    else void sendPage(reply, 422, await page(parsed.errors));
    return undefined;
  }

  web.get('/reports', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const ctx = request.page;
    const { t } = ctx;
    const { caller, timeZone } = session;
    const query = request.query;
    const choice = reportChoiceOf(query);
    if (choice === undefined) return sendPage(reply, 400, layout(ctx, t.reports, html``, { error: t.invalidFilter }));
    const { group, period } = choice;
    // First visit (no choice made yet): the recent months.
    const given = filterFormOf(query);
    const form = formText(query, 'group') === '' ? withDefaultRange(given, wallClock(Date.now(), timeZone).date) : given;
    const filterForm = async (errors: Record<string, string>): Promise<Html> => html`
      <form method="get" action="/reports" class="card filters" aria-label="${t.filter}">
        ${await filterFields(ctx, administration, caller, form, errors)}
        <div class="grid">
          ${field('f-group', t.groupBy, html`<select id="f-group" name="group">${REPORT_GROUPS.map((g) => html`<option value="${g}"${flag('selected', g === group)}>${t[GROUP_TEXT[g]]}</option>`)}</select>`, undefined)}
          ${field('f-period', t.period, html`<select id="f-period" name="period">${REPORT_PERIODS.map((p) => html`<option value="${p}"${flag('selected', p === period)}>${t[PERIOD_TEXT[p]]}</option>`)}</select>`, undefined)}
        </div>
        <button type="submit" class="primary">${t.show}</button>
      </form>`;
    const filter = await scopedFilter(request, reply, session, form, async (errors) => layout(ctx, t.reports, await filterForm(errors)));
    if (filter === undefined) return reply;
    const account = await loadReportAccount(reports.db, caller.accountId);
    const report = await buildReport(reports, scopeOf(caller), filter, account, { groupBy: group, period });
    const hours = (seconds: number) => hoursIn(ctx, seconds);
    const periodName = t[PERIOD_TEXT[period]];
    const chart = barChart('report-chart', barsOf(ctx, report), {
      title: fill(t.chartTitle, { period: period === 'total' ? t[GROUP_TEXT[group]] : periodName }),
      description: period === 'total' ? fill(t.chartTotalDescription, { group: t[GROUP_TEXT[group]] }) : fill(t.chartDescription, { period: periodName }),
      billable: t.billable, nonBillable: t.nonBillable, hours,
      tick: (value) => new Intl.NumberFormat(ctx.lang === 'de' ? 'de-DE' : 'en-GB', { maximumFractionDigits: 1 }).format(value),
    });
    const rates = report.hourlyRatesEnabled;
    const body = html`
      ${await filterForm({})}
      ${downloadLinks(ctx, '/reports/table', filterQuery(form, { group, period }), { nav: t.reportDownloads, file: t.reportFile })}
      ${downloadLinks(ctx, '/reports/export', filterQuery(form), { nav: t.entryDownloads, file: t.entriesFile })}
      ${report.lines.length === 0 ? html`<p class="empty">${t.noData}</p>` : html`
      <div class="report">
        <figure class="chart-box" aria-labelledby="chart-legend">
          <div class="scroll" role="region" aria-label="${t.reports}" tabindex="0">${chart}</div>
          <figcaption id="chart-legend" class="legend"><span class="swatch billable"></span> ${t.billable} <span class="swatch non-billable"></span> ${t.nonBillable}</figcaption>
        </figure>
        <div class="scroll" role="region" aria-label="${t.reportTable}" tabindex="0"><table class="list report-table">
          <caption>${t.reportTable}</caption>
          <thead><tr>${period === 'total' ? '' : html`<th scope="col">${periodName}</th>`}<th scope="col">${t[GROUP_TEXT[group]]}</th>
            <th scope="col" class="number">${t.billableHours}</th><th scope="col" class="number">${t.nonBillableHours}</th><th scope="col" class="number">${t.totalHours}</th>
            ${rates ? html`<th scope="col" class="number">${t.revenue} (${report.currency})</th>` : ''}</tr></thead>
          <tbody>${report.lines.map((line) => html`<tr>
            ${period === 'total' ? '' : html`<td>${periodLabel(ctx, line.period)}</td>`}<th scope="row">${line.label || t.withoutName}</th>
            <td class="number">${hours(line.billableSeconds)}</td><td class="number">${hours(line.nonBillableSeconds)}</td><td class="number">${hours(line.seconds)}</td>
            ${rates ? html`<td class="number">${line.revenue === null ? '' : decimalIn(ctx, line.revenue)}</td>` : ''}</tr>`)}</tbody>
          <tfoot><tr>${period === 'total' ? '' : html`<td></td>`}<th scope="row">${t.total}</th>
            <td class="number" data-total="billable">${hours(report.total.billableSeconds)}</td><td class="number" data-total="non-billable">${hours(report.total.nonBillableSeconds)}</td>
            <td class="number" data-total="seconds" data-seconds="${report.total.seconds}">${hours(report.total.seconds)}</td>
            ${rates ? html`<td class="number" data-total="revenue">${report.total.revenue === null ? '' : decimalIn(ctx, report.total.revenue)}</td>` : ''}</tr></tfoot>
        </table></div>
      </div>`}`;
    return sendPage(reply, 200, layout(ctx, t.reports, body));
  });

  web.get('/reports/export', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const file = exportFormatOf(request.query);
    if (file === undefined) return sendPage(reply, 400, layout(request.page, request.page.t.reports, html``, { error: request.page.t.invalidFilter }));
    const form = filterFormOf(request.query);
    const filter = await scopedFilter(request, reply, session, form, async () => layout(request.page, request.page.t.reports, html``, { error: request.page.t.invalidDate }));
    if (filter === undefined) return reply;
    return sendExport(request, reply, reports, session.caller, filter, file);
  });

  // The report's own table, as the page shows it (same filter, grouping, period and scope).
  web.get('/reports/table', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const file = exportFormatOf(request.query);
    const choice = reportChoiceOf(request.query);
    if (file === undefined || choice === undefined) return sendPage(reply, 400, layout(request.page, request.page.t.reports, html``, { error: request.page.t.invalidFilter }));
    const form = filterFormOf(request.query);
    const filter = await scopedFilter(request, reply, session, form, async () => layout(request.page, request.page.t.reports, html``, { error: request.page.t.invalidDate }));
    if (filter === undefined) return reply;
    const { caller } = session;
    const account = await loadReportAccount(reports.db, caller.accountId);
    const report = await buildReport(reports, scopeOf(caller), filter, account, { groupBy: choice.group, period: choice.period });
    return sendReportFile(request, reply, report, filter, file);
  });
}

/** The grouping and period the request chooses (project and week when it names none); undefined when it names an unknown one. */
function reportChoiceOf(query: unknown): { group: ReportGroup; period: ReportPeriod } | undefined {
  const group = (formText(query, 'group') || 'project') as ReportGroup;
  const period = (formText(query, 'period') || 'week') as ReportPeriod;
  return REPORT_GROUPS.includes(group) && REPORT_PERIODS.includes(period) ? { group, period } : undefined;
}

