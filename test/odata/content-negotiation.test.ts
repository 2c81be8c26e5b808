import { describe, expect, it } from 'vitest';
import type { NegotiationRequest, ResponseKind } from '../../odata/content-negotiation.js';
import { negotiate } from '../../odata/content-negotiation.js';
import { NotAcceptableError } from '../../odata/errors.js';

const ATOM = 'application/atom+xml;charset=utf-8';
const JSON_CT = 'application/json;charset=utf-8';
const XML = 'application/xml;charset=utf-8';
const ATOMSVC = 'application/atomsvc+xml;charset=utf-8';
const TEXT = 'text/plain;charset=utf-8';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';

type Row = readonly [kind: ResponseKind, accept: string | undefined, format: string | undefined, expected: string];

const chosen: readonly Row[] = [
  // Nothing asked: Atom for feeds and entries, XML for the rest, text/plain for $count and $value.
  ['feed', undefined, undefined, ATOM],
  ['entry', '', undefined, ATOM],
  ['property', undefined, undefined, XML],
  ['links', undefined, undefined, XML],
  ['serviceDocument', undefined, undefined, XML],
  ['metadata', undefined, undefined, XML],
  ['count', undefined, undefined, TEXT],
  ['value', undefined, undefined, TEXT],
  ['error', undefined, undefined, XML],
  // Accept alone.
  ['feed', 'application/json', undefined, JSON_CT],
  ['feed', 'application/json;odata=verbose', undefined, JSON_CT],
  ['entry', 'application/atom+xml;type=entry', undefined, ATOM],
  ['feed', 'application/atom+xml;type=entry, application/json;q=0.5', undefined, JSON_CT],
  ['feed', '*/*', undefined, ATOM],
  ['feed', 'application/*', undefined, ATOM],
  ['feed', '*/*, application/json', undefined, JSON_CT],
  ['feed', 'application/json;q=0.5, application/atom+xml', undefined, ATOM],
  ['feed', 'application/json, application/atom+xml', undefined, JSON_CT],
  ['feed', 'application/xml', undefined, XML],
  ['feed', BROWSER, undefined, XML],
  ['property', 'application/json', undefined, JSON_CT],
  ['property', '*/*;q=0.1, application/xml;q=0', undefined, JSON_CT],
  ['serviceDocument', 'application/atomsvc+xml', undefined, ATOMSVC],
  ['serviceDocument', 'application/json', undefined, JSON_CT],
  ['metadata', BROWSER, undefined, XML],
  ['count', '*/*', undefined, TEXT],
  ['count', 'text/*', undefined, TEXT],
  ['feed', 'garbage, ;;;', undefined, ATOM],
  ['error', 'application/json', undefined, JSON_CT],
  ['error', 'image/png', undefined, XML],
  // $format wins over Accept.
  ['feed', 'application/json', 'atom', ATOM],
  ['entry', 'application/atom+xml', 'json', JSON_CT],
  ['feed', undefined, 'xml', XML],
  ['feed', undefined, 'application/json', JSON_CT],
  ['property', 'application/xml', 'JSON', JSON_CT],
  ['serviceDocument', undefined, 'atom', ATOMSVC],
  ['error', undefined, 'json', JSON_CT],
  ['error', undefined, 'bogus', XML],
  // $count and $value have one representation; $format does not apply to them.
  ['count', undefined, 'json', TEXT],
];

const refused: readonly (readonly [ResponseKind, string | undefined, string | undefined])[] = [
  ['feed', 'text/html', undefined],
  ['feed', 'application/atom+xml;q=0, application/json;q=0, application/xml;q=0', undefined],
  ['entry', 'application/atom+xml;type=feed', undefined],
  ['metadata', 'application/json', undefined],
  ['metadata', undefined, 'json'],
  ['property', undefined, 'atom'],
  ['count', 'application/json', undefined],
  ['feed', undefined, 'yaml'],
  ['feed', undefined, 'text/csv'],
];

describe('content negotiation', () => {
  it.each(chosen)('%s with Accept %j and $format %j -> %s', (kind, accept, format, expected) => {
    const request: NegotiationRequest = { kind, ...(accept === undefined ? {} : { accept }), ...(format === undefined ? {} : { format }) };
    expect(negotiate(request)).toBe(expected);
  });

  it.each(refused)('%s with Accept %j and $format %j -> 406', (kind, accept, format) => {
    const request: NegotiationRequest = { kind, ...(accept === undefined ? {} : { accept }), ...(format === undefined ? {} : { format }) };
    expect(() => negotiate(request)).toThrow(NotAcceptableError);
    try {
      negotiate(request);
    } catch (error) {
      expect((error as NotAcceptableError).status).toBe(406);
    }
  });

  it('answers $value of a binary property as application/octet-stream, without a charset', () => {
    expect(negotiate({ kind: 'value', binary: true })).toBe('application/octet-stream');
  });
});
