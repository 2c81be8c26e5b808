// Downloads of a filtered entry list as CSV (`;` or `,`) or XLSX: the reports module's export
// (service/reports/export-entries.ts) streamed into the answer, in the caller's scope (an
// administrator the whole account, a standard user their own entries), headed in the page's
// language; or a report's own table (service/reports/report-export.ts). The links offer the three
// files beside a list or report.
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EXPORT_MEDIA_TYPES, exportEntries, exportFileName } from '../reports/export-entries.js';
import type { ExportFormat } from '../reports/report-scope.js';
import { exportReport, reportFileName } from '../reports/report-export.js';
import type { Report } from '../reports/report-query.js';
import { loadReportAccount, scopeOf } from '../reports/report-scope.js';
import type { EntryFilter, ReportDatabase } from '../reports/report-scope.js';
import type { Caller } from '../timetracking/caller.js';
import { formText } from './form-values.js';
import { html } from './html.js';
import type { Html } from './html.js';
import type { PageContext } from './layout.js';

const FILES: ReadonlyArray<readonly [ExportFormat, ';' | ',' | undefined, string]> = [
  ['csv', ';', 'CSV (;)'], ['csv', ',', 'CSV (,)'], ['xlsx', undefined, 'Excel (XLSX)'],
];

/**
 * Links to the files of the list `path` answers with the filter `query` (a query string); `names`
 * tells two sets of links on one page apart (the navigation's label, the links' word).
 */
export function downloadLinks(ctx: PageContext, path: string, query: string,
  names: { readonly nav: string; readonly file: string } = { nav: ctx.t.downloads, file: ctx.t.download }): Html {
  return html`<nav class="downloads" aria-label="${names.nav}"><ul>${FILES.map(([format, delimiter, label]) => {
    const params = new URLSearchParams(query);
    params.set('format', format);
    if (delimiter !== undefined) params.set('delimiter', delimiter);
    return html`<li><a class="button" href="${path}?${params.toString()}" download>${names.file}: ${label}</a></li>`;
  })}</ul></nav>`;
}

/** The format of the request's `format` and `delimiter`; undefined when they name none. */
export function exportFormatOf(query: unknown): { format: ExportFormat; delimiter: ';' | ',' } | undefined {
  const format = formText(query, 'format');
  const delimiter = formText(query, 'delimiter') || ';';
  if ((format !== 'csv' && format !== 'xlsx') || (delimiter !== ';' && delimiter !== ',')) return undefined;
  return { format, delimiter };
}

/** Streams the export into the answer; a failure after the first bytes cuts the download short (never a page inside a file). */
export async function sendExport(request: FastifyRequest, reply: FastifyReply, database: ReportDatabase, caller: Caller, filter: EntryFilter,
  file: { format: ExportFormat; delimiter: ';' | ',' }): Promise<FastifyReply> {
  const language = request.page.lang;
  const account = await loadReportAccount(database.db, caller.accountId);
  return streamFile(request, reply, file.format, exportFileName(filter, file.format, language),
    (body) => exportEntries(database, scopeOf(caller), filter, account, body, { format: file.format, delimiter: file.delimiter, language }));
}

/** Sends a report's own table (built by the caller, in the caller's scope) as a file. */
export function sendReportFile(request: FastifyRequest, reply: FastifyReply, report: Report, filter: EntryFilter,
  file: { format: ExportFormat; delimiter: ';' | ',' }): Promise<FastifyReply> {
  const language = request.page.lang;
  return streamFile(request, reply, file.format, reportFileName(filter, report, file.format, language),
    (body) => exportReport(report, body, { format: file.format, delimiter: file.delimiter, language }));
}

async function streamFile(request: FastifyRequest, reply: FastifyReply, format: ExportFormat, fileName: string,
  write: (body: PassThrough) => Promise<unknown>): Promise<FastifyReply> {
  const body = new PassThrough();
  void reply.code(200).header('content-type', EXPORT_MEDIA_TYPES[format]).header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="${fileName}"`).send(body);
  try {
    await write(body);
    body.end();
  } catch (error) {
    request.log.error({ err: error }, 'export failed');
    body.destroy(error as Error);
  }
  return reply;
}
