// Reads timegate's own annotations (namespace urn:timegate:annotations:v1) off model elements,
// whatever prefix the document bound that namespace to.
import type { Annotations, Model, Property } from './model.js';

export const TIMEGATE_ANNOTATIONS_URI = 'urn:timegate:annotations:v1';

export interface CodedValue {
  readonly name: string;
  readonly value: number;
}

function timegateAnnotation(model: Model, annotations: Annotations, localName: string): string | undefined {
  for (const [prefix, uri] of Object.entries(model.annotationNamespaces)) {
    if (uri !== TIMEGATE_ANNOTATIONS_URI) continue;
    const value = annotations[`${prefix}:${localName}`];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** `tg:enum="StandardUser=10,Administrator=20"`, in document order; empty without the annotation. */
export function codedValues(model: Model, annotations: Annotations): CodedValue[] {
  const text = timegateAnnotation(model, annotations, 'enum');
  if (text === undefined) return [];
  return text.split(',').map((member) => {
    const [name = '', value = ''] = member.split('=').map((part) => part.trim());
    return { name, value: Number(value) };
  });
}

/** `tg:server-default="true"`: the service fills the value when a create omits it. */
export function isServerDefault(model: Model, annotations: Annotations): boolean {
  return timegateAnnotation(model, annotations, 'server-default') === 'true';
}

/**
 * Whether a create must give the property: creatable, not nullable, and neither a `DefaultValue`
 * nor a service-filled default. The generated validators and the service apply this one rule.
 */
export function isRequiredOnCreate(model: Model, property: Property): boolean {
  return property.capabilities.creatable && !property.nullable && property.defaultValue === undefined
    && !isServerDefault(model, property.annotations);
}
