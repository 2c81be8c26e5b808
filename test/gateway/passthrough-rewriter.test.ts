// The root rewrite as bodies stream: however the upstream's bytes are cut into chunks (a root
// split anywhere, even byte by byte, JSON's `\/` spelling, multi-byte characters beside it),
// the client receives the document with every upstream root replaced by the gateway's.
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { RootRewriteStream, rewriteRoot } from '../../gateway/passthrough/root-rewriter.js';

const pair = { from: 'http://10.0.0.5:4004/V1/Api.svc', to: 'https://api.example.com/V1/Api.svc' };

const jsonDocument = JSON.stringify({
  d: {
    results: [
      { __metadata: { uri: `${pair.from}/Projects(1)` }, Name: 'Grüße ☕', Client: { __deferred: { uri: `${pair.from}/Projects(1)/Client` } } },
    ],
    __next: `${pair.from}/Projects?$skiptoken=1`,
  },
});
const escapedJson = jsonDocument.replaceAll('/', '\\/');
const atomDocument = `<feed xml:base="${pair.from}/"><id>${pair.from}/Projects</id><entry><id>${pair.from}/Projects(1)</id><link href="Projects(1)"/></entry></feed>`;

function rewrittenInChunks(document: string, cuts: readonly number[]): Promise<string> {
  const bytes = Buffer.from(document);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  return text(Readable.from(chunks).pipe(new RootRewriteStream(pair)));
}

describe('the streaming root rewrite', () => {
  for (const [name, document] of [['JSON', jsonDocument], ['JSON with escaped slashes', escapedJson], ['Atom', atomDocument]] as const) {
    it(`rewrites ${name} wherever the chunks are cut`, async () => {
      const expected = rewriteRoot(document, pair);
      expect(expected).not.toContain('10.0.0.5');
      const length = Buffer.byteLength(document);
      for (let cut = 1; cut < length; cut++) {
        expect(await rewrittenInChunks(document, [cut])).toBe(expected);
      }
      const everyByte = Array.from({ length: length - 1 }, (_, i) => i + 1);
      expect(await rewrittenInChunks(document, everyByte)).toBe(expected);
    });
  }

  it('writes the gateway root in the escaped spelling where the upstream escaped it', () => {
    expect(rewriteRoot(escapedJson, pair)).toContain('"https:\\/\\/api.example.com\\/V1\\/Api.svc\\/Projects(1)"');
  });

  it('leaves documents without the root unchanged, also roots of other hosts or paths', async () => {
    const other = '{"uri":"http://10.0.0.5:4004/V2/Other.svc/X(1)","also":"http://10.0.0.50:4004/V1/Api.svc"}';
    expect(await rewrittenInChunks(other, [7, 30])).toBe(other);
    expect(await rewrittenInChunks('', [])).toBe('');
  });
});

describe('the streaming root rewrite of a body without the upstream root', () => {
  it('passes every chunk on as the same bytes, not a copy, when no root could start at its end', async () => {
    const body = Buffer.from(JSON.stringify({ d: { __metadata: { uri: `${pair.to}/Projects(1)` }, Name: 'x'.repeat(70_000) } }));
    const chunks = [body.subarray(0, 65_536), body.subarray(65_536)];
    const out: Buffer[] = [];
    const stream = Readable.from(chunks).pipe(new RootRewriteStream(pair));
    for await (const chunk of stream) out.push(chunk as Buffer);
    expect(Buffer.concat(out).equals(body)).toBe(true);
    expect(out).toHaveLength(2);
    out.forEach((chunk, i) => expect(chunk.buffer).toBe(chunks[i]?.buffer));
  });
});
