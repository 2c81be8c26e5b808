// Readers and builders compiled per entity set (json-reader, xml-values, the REST shapes, the
// service's row builder) write every property name into their code: a load or store by a constant
// name is a fast named access, where a loop over the names made each one megamorphic. Names go
// in as JSON string literals, so none can break out of its quotes; `__proto__`, which a plain
// access would take for the prototype, is read and written as an own property.

/** Code reading own property `name` of `object` (undefined when it has none). */
export function loadCode(object: string, name: string): string {
  return name === '__proto__' ? `(Object.hasOwn(${object}, "__proto__") ? ${object}["__proto__"] : undefined)` : `${object}[${JSON.stringify(name)}]`;
}

/** Code making `value` the own, enumerable property `name` of `object`. */
export function storeCode(object: string, name: string, value: string): string {
  return name === '__proto__'
    ? `Object.defineProperty(${object}, "__proto__", { value: ${value}, enumerable: true, writable: true, configurable: true })`
    : `${object}[${JSON.stringify(name)}] = ${value}`;
}

/** A function compiled from generated code. */
export function compileFunction<F>(parameters: readonly string[], body: string): F {
  return new Function(...parameters, body) as F;
}
