// Verbose JSON with an upstream: odata/'s compiled JSON reader per entity set for responses,
// property encoders for bodies (`{"Name":"Website","Active":true}`, no `__metadata`, which a
// create has no key for).
import type { EdmRecord } from '../../odata/edm.js';
import { PayloadError } from '../../odata/errors.js';
import type { JsonReader } from '../../odata/json-reader.js';
import { createJsonReader, parseJsonText, unwrapD } from '../../odata/json-reader.js';
import type { JsonEncoder } from '../../odata/json-values.js';
import { isPlainObject, jsonString, valueDecoder, valueEncoder } from '../../odata/json-values.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, FunctionImport } from '../../odata/model.js';
import type { FunctionValue, ODataCodec } from './odata-codec.js';

const COLLECTION = /^Collection\((.+)\)$/;

export function createJsonCodec(index: ModelIndex): ODataCodec {
  const readers = new Map<EntitySet, JsonReader>();
  const encoders = new Map<EntitySet, ReadonlyMap<string, { prefix: string; encode: JsonEncoder }>>();
  for (const set of index.model.entitySets) {
    readers.set(set, createJsonReader(index, set));
    const type = index.typeOfSet(set);
    encoders.set(set, new Map(type.properties.map((p) => [p.name, { prefix: `${jsonString(p.name)}:`, encode: valueEncoder(index, p.type, p.name) }])));
  }
  const readerOf = (set: EntitySet) => readers.get(set) as JsonReader;

  return {
    accept: 'application/json',
    contentType: 'application/json',
    feed: (set, body) => readerOf(set).feed(body.toString('utf8')),
    entry: (set, body) => readerOf(set).entry(body.toString('utf8')),
    functionValue(fn: FunctionImport, body: Buffer): FunctionValue {
      const returnType = fn.returnType;
      if (returnType === undefined) return null;
      let value = unwrapD(parseJsonText(body.toString('utf8')));
      // Olingo wraps the result in the function's name ({"d":{"GetChangesDigest":{...}}}); WCF does not.
      if (isPlainObject(value) && Object.keys(value).length === 1 && Object.hasOwn(value, fn.name)) value = value[fn.name];
      const item = COLLECTION.exec(returnType)?.[1];
      if (item === undefined) return valueDecoder(index, returnType, fn.name)(value);
      const list = Array.isArray(value) ? value : isPlainObject(value) ? value.results : undefined;
      if (!Array.isArray(list)) throw new PayloadError(`${fn.name}: expected a collection of ${item}`);
      const decode = valueDecoder(index, item, fn.name);
      return list.map((v) => decode(v));
    },
    entityBody(set, record: EdmRecord): string {
      const properties = encoders.get(set);
      let out = '';
      for (const [name, value] of Object.entries(record)) {
        const property = properties?.get(name);
        if (property === undefined) throw new TypeError(`${name} is not a property of ${set.name}`);
        out += (out === '' ? '{' : ',') + property.prefix + property.encode(value);
      }
      return out === '' ? '{}' : `${out}}`;
    },
  };
}
