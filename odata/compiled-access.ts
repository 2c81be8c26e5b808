// Readers and builders compiled per entity set (json-reader, xml-properties, the writers'
// property writers, the REST shapes, the service's row and record builders) write every property
// name into their code: a load or store by a constant name is a fast named access, where a loop
// over the names made each one megamorphic. Names go in as JSON string literals, so none can
// break out of its quotes; names of Object.prototype's members are read and written as own
// properties only.

/**
 * Code reading own property `name` of `object` (undefined when it has none). A name that
 * Object.prototype has (`constructor`, `toString`, `__proto__`) is checked to be the object's own,
 * or a record without it would read a function (or the prototype) as its value.
 */
export function loadCode(object: string, name: string): string {
  const literal = JSON.stringify(name);
  return name in Object.prototype ? `(Object.hasOwn(${object}, ${literal}) ? ${object}[${literal}] : undefined)` : `${object}[${literal}]`;
}

/** Code making `value` the own, enumerable property `name` of `object`. */
export function storeCode(object: string, name: string, value: string): string {
  return name === '__proto__'
    ? `Object.defineProperty(${object}, "__proto__", { value: ${value}, enumerable: true, writable: true, configurable: true })`
    : `${object}[${JSON.stringify(name)}] = ${value}`;
}

/** Code of `name` as a key of an object literal (`"__proto__": v` would set the prototype). */
export function keyCode(name: string): string {
  return name === '__proto__' ? '["__proto__"]' : JSON.stringify(name);
}

/** A function compiled from generated code. */
export function compileFunction<F>(parameters: readonly string[], body: string): F {
  return new Function(...parameters, body) as F;
}
