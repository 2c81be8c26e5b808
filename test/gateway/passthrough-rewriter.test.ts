// The root rewrite as bodies stream: however the upstream's bytes are cut into chunks (a root
// split anywhere, even byte by byte, JSON's `\/` spelling, multi-byte characters beside it),
// the client receives the document with every upstream root replaced by the gateway's.
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { RootRewriteStream, bodyMayEscapeSlashes, rewriteRoot, rewriteRootBytes } from '../../gateway/passthrough/root-rewriter.js';
import type { RootPair } from '../../gateway/passthrough/root-rewriter.js';

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

// What the rewrite must do, written plainly: from left to right, at each place the first of the
// spellings that matches there (as is, then JSON's `\/`; the upstream's root, then the one a
// forwarded host makes) is replaced, and the scan goes on after it.
function referenceRewrite(document: string, rootPair: RootPair, escapedSlashes: boolean): string {
  const spellings: Array<[string, string]> = [];
  for (const from of rootPair.forwardedFrom === undefined ? [rootPair.from] : [rootPair.from, rootPair.forwardedFrom]) {
    spellings.push([from, rootPair.to]);
    if (escapedSlashes && from.includes('/')) spellings.push([from.replaceAll('/', '\\/'), rootPair.to.replaceAll('/', '\\/')]);
  }
  let out = '';
  let at = 0;
  outer: while (at < document.length) {
    for (const [from, to] of spellings) {
      if (document.startsWith(from, at)) {
        out += to;
        at += from.length;
        continue outer;
      }
    }
    out += document[at];
    at += 1;
  }
  return out;
}

/** A small deterministic generator, so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('the root rewrite against a plain reference, on random documents', () => {
  // Replacements shorter, as long and longer than the root, and spellings whose lengths change
  // in opposite directions in one document (the escaped root gains slashes the gateway's lacks).
  const pairs: RootPair[] = [
    { from: 'http://10.0.0.5:4004/V1/Api.svc', to: 'https://api.example.com/V1/Api.svc' },
    { from: 'http://upstream.internal.example:4004/V1/Api.svc', to: 'https://gw/V1/Api.svc' },
    { from: 'http://127.0.0.1:4104/V1/Api.svc', to: 'http://127.0.0.1:8080/V1/Api.svc' },
    { from: 'http://sap:8000/sap/opu/odata/sap/ZTIME_SRV', to: 'https://gw.example.com:4430/Api.svc' },
    { from: 'http://10.0.0.5:4004/V1/Api.svc', to: 'https://api.example.com/V1/Api.svc', forwardedFrom: 'https://api.example.com/sap/V1' },
  ];
  const fillers = ['"uri":"', '<id>', 'Grüße ☕', ' ', '/', '\\/', 'http://', 'x', '"},{'];

  it('gives the reference\'s bytes, whole and in random chunks', async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const rootPair = pairs[seed % pairs.length] as RootPair;
      const roots = [rootPair.from, rootPair.from.replaceAll('/', '\\/'), rootPair.to, ...(rootPair.forwardedFrom === undefined ? [] : [rootPair.forwardedFrom])];
      let document = '';
      const pieces = 1 + Math.floor(next() * 60);
      for (let i = 0; i < pieces; i++) {
        const pick = next();
        if (pick < 0.4) document += roots[Math.floor(next() * roots.length)];
        else if (pick < 0.5) document += (roots[Math.floor(next() * roots.length)] as string).slice(0, 1 + Math.floor(next() * 20));
        else document += fillers[Math.floor(next() * fillers.length)];
      }
      // Every third document is read as XML, where `\/` is no escape.
      const escapedSlashes = seed % 3 !== 0;
      const expected = referenceRewrite(document, rootPair, escapedSlashes);
      const bytes = Buffer.from(document);
      expect(rewriteRootBytes(bytes, rootPair, escapedSlashes).toString(), `seed ${seed}`).toBe(expected);
      const cuts = new Set<number>();
      const cutCount = Math.floor(next() * 6);
      for (let i = 0; i < cutCount; i++) cuts.add(1 + Math.floor(next() * Math.max(1, bytes.length - 1)));
      const chunks: Buffer[] = [];
      let from = 0;
      for (const cut of [...[...cuts].sort((a, b) => a - b), bytes.length]) {
        if (cut <= from) continue;
        chunks.push(bytes.subarray(from, cut));
        from = cut;
      }
      const streamed = await text(Readable.from(chunks).pipe(new RootRewriteStream(rootPair, escapedSlashes)));
      expect(streamed, `seed ${seed}, cut at ${[...cuts].join(',')}`).toBe(expected);
    }
  });
});

describe('the spellings a body may use', () => {
  it('looks for JSON\'s escaped slashes in JSON, JSONP, text and multipart bodies, not in XML', () => {
    for (const type of ['application/json', 'application/json;charset=utf-8', 'text/javascript', 'text/plain', 'multipart/mixed; boundary=batch_1']) {
      expect(bodyMayEscapeSlashes(type), type).toBe(true);
    }
    for (const type of ['application/atom+xml;type=feed', 'application/xml', 'text/xml', 'Application/ATOM+XML']) {
      expect(bodyMayEscapeSlashes(type), type).toBe(false);
    }
  });

  it('leaves a `\\/` in an XML body as the text it is, and still rewrites the roots', async () => {
    const escaped = pair.from.replaceAll('/', '\\/');
    const xml = `<entry><id>${pair.from}/Projects(1)</id><d:Comment>${escaped}</d:Comment></entry>`;
    const rewritten = await text(Readable.from([Buffer.from(xml)]).pipe(new RootRewriteStream(pair, false)));
    expect(rewritten).toBe(`<entry><id>${pair.to}/Projects(1)</id><d:Comment>${escaped}</d:Comment></entry>`);
  });
});
