// Hostile `$batch` bodies for the fuzz suites: a few well-formed batches (retrieves, changesets of
// creates and of merges through `$<Content-ID>`), each mangled by one to four mutations of the
// kinds that break a multipart parser: bytes flipped, cut, repeated or moved, delimiters and
// headers inserted where they do not belong, line breaks changed, the body cut short.
import fc from 'fast-check';

export const FUZZ_BOUNDARY = 'batch_fz';
export const FUZZ_CONTENT_TYPE = `multipart/mixed; boundary=${FUZZ_BOUNDARY}`;

function part(request: string): string {
  return `Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n${request}\r\n`;
}

function changeset(name: string, requests: readonly string[]): string {
  const body = requests.map((request, i) => `--${name}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: ${i + 1}\r\n\r\n${request}\r\n`).join('');
  return `Content-Type: multipart/mixed; boundary=${name}\r\n\r\n${body}--${name}--\r\n`;
}

const json = (method: string, url: string, body: string) => `${method} ${url} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n\r\n${body}`;
const atom = (url: string, properties: string) => `POST ${url} HTTP/1.1\r\nContent-Type: application/atom+xml\r\n\r\n`
  + '<entry xmlns="http://www.w3.org/2005/Atom" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" '
  + `xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices"><content type="application/xml"><m:properties>${properties}</m:properties></content></entry>`;

function batch(...parts: string[]): string {
  return `${parts.map((p) => `--${FUZZ_BOUNDARY}\r\n${p}`).join('')}--${FUZZ_BOUNDARY}--\r\n`;
}

/**
 * Well-formed batches of the demo account's data (`project`: a project everybody may book on).
 * Cheap operations mostly (a batch runs all of them each time one survives its mutations): reads
 * of a count, creates of clients, one time entry (the costliest write) and merges by Content-ID.
 */
export function fuzzSeeds(project: number): string[] {
  const entry = `{"ProjectID":${project},"StartTime":"\\/Date(${Date.UTC(2026, 9, 1, 8)})\\/","EndTime":"\\/Date(${Date.UTC(2026, 9, 1, 9)})\\/","Comment":"fz"}`;
  return [
    batch(
      part('GET Clients/$count HTTP/1.1\r\n'),
      changeset('cs_a', [json('POST', 'Clients', '{"Name":"fz a1"}'), json('POST', 'Clients', '{"Name":"fz a2","Active":true}')]),
      part('GET Projects?$top=1&$select=ID,Name HTTP/1.1\r\nAccept: application/json\r\n'),
    ),
    batch(
      changeset('cs_b', [
        json('POST', 'Clients', '{"Name":"fz Kunde","Active":true}'),
        json('POST', '$1/Projects', '{"Name":"fz Projekt","Active":true}'),
        json('MERGE', '$2', '{"Comment":"fz geändert"}'),
      ]),
      changeset('cs_c', [atom('Tasks', '<d:Description>fz Tätigkeit</d:Description>'), `MERGE $1 HTTP/1.1\r\nX-HTTP-Method: MERGE\r\nContent-Type: application/json\r\n\r\n{"Billable":false}`]),
    ),
    batch(
      part('GET Tasks/$count HTTP/1.1\r\n'),
      changeset('cs_d', [json('POST', 'TimeEntries', entry), json('MERGE', '$1', '{"Billable":false}')]),
    ),
  ];
}

const INSERTS = [
  '\r\n', '\n', '\r', '--', `--${FUZZ_BOUNDARY}\r\n`, `\r\n--${FUZZ_BOUNDARY}--\r\n`, '--cs_a\r\n', '--cs_b--\r\n',
  'Content-Type: multipart/mixed; boundary=cs_x\r\n\r\n--cs_x\r\n', 'Content-Type: application/http\r\n', 'Content-Type: text/plain\r\n',
  'GET Projects HTTP/1.1\r\n', 'POST Clients HTTP/1.1\r\n', 'DELETE Projects(1) HTTP/1.1\r\n', 'Content-Length: 99999\r\n', 'Content-Length: 3\r\n',
  'Content-ID: 1\r\n', '$1', '$9/', 'X-HTTP-Method: PUT\r\n', '\r\n\r\n', `X-Filler: ${'a'.repeat(20_000)}\r\n`, '\u0000', '\u00ff\u00fe', '\ud800',
  '"', '{', '<', 'Content-Transfer-Encoding: base64\r\n', ' HTTP/1.1', '%ZZ', "'", '$batch',
];

export type Mutation =
  | { readonly kind: 'flip'; readonly at: number; readonly byte: number }
  | { readonly kind: 'cut'; readonly at: number; readonly length: number }
  | { readonly kind: 'repeat'; readonly at: number; readonly length: number }
  | { readonly kind: 'insert'; readonly at: number; readonly text: string }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'swapLines'; readonly a: number; readonly b: number }
  | { readonly kind: 'lineBreaks'; readonly to: '\n' | '\r' | '\r\r\n' };

const position = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: position, byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: position, length: fc.integer({ min: 1, max: 80 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: position, length: fc.integer({ min: 1, max: 400 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: position, text: fc.constantFrom(...INSERTS) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('swapLines' as const), a: position, b: position }),
  fc.record({ kind: fc.constant('lineBreaks' as const), to: fc.constantFrom('\n' as const, '\r' as const, '\r\r\n' as const) }),
);

export function mutate(body: Buffer, m: Mutation): Buffer {
  const at = (fraction: number) => Math.floor(fraction * body.length);
  switch (m.kind) {
    case 'flip': {
      const copy = Buffer.from(body);
      if (copy.length > 0) copy[at(m.at)] = m.byte;
      return copy;
    }
    case 'cut':
      return Buffer.concat([body.subarray(0, at(m.at)), body.subarray(at(m.at) + m.length)]);
    case 'repeat':
      return Buffer.concat([body.subarray(0, at(m.at) + m.length), body.subarray(at(m.at))]);
    case 'insert':
      return Buffer.concat([body.subarray(0, at(m.at)), Buffer.from(m.text, 'utf8'), body.subarray(at(m.at))]);
    case 'truncate':
      return body.subarray(0, at(m.at));
    case 'swapLines': {
      const lines = body.toString('latin1').split('\r\n');
      const [i, j] = [Math.floor(m.a * lines.length), Math.floor(m.b * lines.length)];
      [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
      return Buffer.from(lines.join('\r\n'), 'latin1');
    }
    case 'lineBreaks':
      return Buffer.from(body.toString('latin1').replaceAll('\r\n', m.to), 'latin1');
  }
}

/** A seed mangled by one to four mutations. */
export function hostileBatch(seeds: readonly string[]): fc.Arbitrary<Buffer> {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([seed, mutations]) => mutations.reduce(mutate, Buffer.from(seed, 'utf8')));
}
