// The resource path of a V2 URI (URI Conventions 2, MS-ODATA 2.2.3.5): what follows the
// service root, percent-decoded segment by segment, resolved against the model.
//
//   (empty)  $metadata  $batch  Set  Set(key)  Set(key)/Nav[(key)]/...  Set(key)/Prop[/Sub]/$value
//   Set/$count  Set(key)/Nav/$count  Set(key)/$links/Nav[(key)]  Set(key)/$value (media)  Function
import type { EntitySet, EntityType, FunctionImport, NavigationProperty, Property } from './model.js';
import type { ModelIndex } from './model-index.js';
import type { KeyValues } from './key-predicate.js';
import type { QueryLimits } from './limits.js';
import { parseKeyPredicate } from './key-predicate.js';
import { resolveLimits } from './limits.js';
import { quoteForMessage } from './literals.js';
import { ResourceNotFoundError, UriSyntaxError } from './errors.js';

/** One step that addresses entities: the entity set at the root, then navigation properties. */
export interface EntitySegment {
  /** The navigation property of this step; undefined for the entity set at the root. */
  readonly navigation?: NavigationProperty;
  readonly set: EntitySet;
  readonly type: EntityType;
  readonly key?: KeyValues;
  /** True when the step addresses a collection (no key, and a set or a navigation to many). */
  readonly isCollection: boolean;
}

interface Addressed {
  /** From the root set to the addressed entities, in path order. */
  readonly segments: readonly EntitySegment[];
  /** Entity set and type of the last segment. */
  readonly set: EntitySet;
  readonly type: EntityType;
}

export type ResourcePath =
  | { readonly kind: 'serviceDocument' }
  | { readonly kind: 'metadata' }
  | { readonly kind: 'batch' }
  | (Addressed & { readonly kind: 'collection'; readonly count: boolean })
  | (Addressed & { readonly kind: 'entity'; readonly key?: KeyValues; readonly mediaValue: boolean })
  | (Addressed & {
      readonly kind: 'property';
      /** Complex properties walked through, then the addressed property (last). */
      readonly properties: readonly Property[];
      readonly property: Property;
      /** `/$value`: the raw value of a primitive property. */
      readonly value: boolean;
    })
  | (Addressed & {
      readonly kind: 'links';
      /** The link target: a navigation step, with a key when one link of a to-many is named. */
      readonly link: EntitySegment;
      readonly count: boolean;
    })
  | { readonly kind: 'functionImport'; readonly functionImport: FunctionImport; readonly value: boolean };

export interface ResourcePathOptions {
  readonly limits?: Partial<QueryLimits>;
}

/**
 * The path below `rootPath` when `fullPath` starts with it, the root compared case-insensitively
 * (`/V1/Api.svc` and `/v1/API.svc` are one service); undefined when it does not.
 */
export function splitServiceRoot(fullPath: string, rootPath: string): string | undefined {
  const root = rootPath.endsWith('/') ? rootPath.slice(0, -1) : rootPath;
  if (fullPath.length < root.length || fullPath.slice(0, root.length).toLowerCase() !== root.toLowerCase()) {
    return undefined;
  }
  const rest = fullPath.slice(root.length);
  return rest === '' || rest.startsWith('/') ? rest : undefined;
}

function decodeSegment(raw: string, position: number): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new UriSyntaxError(`segment ${position + 1} of the resource path has invalid percent-encoding or UTF-8`, quoteForMessage(raw));
  }
}

interface Named {
  readonly name: string;
  /** Text between the parentheses; undefined when the segment has none. */
  readonly predicate?: string;
}

function splitName(segment: string): Named {
  const open = segment.indexOf('(');
  if (open < 0) return { name: segment };
  if (!segment.endsWith(')')) throw new UriSyntaxError(`segment ${quoteForMessage(segment)} does not end with ')'`, quoteForMessage(segment));
  return { name: segment.slice(0, open), predicate: segment.slice(open + 1, -1) };
}

function notFound(what: string, name: string, where: string): ResourceNotFoundError {
  return new ResourceNotFoundError(`${where} has no ${what} named ${JSON.stringify(quoteForMessage(name))}`, quoteForMessage(name));
}

class PathResolver {
  private i = 1;
  private readonly maxLiteralLength: number;

  constructor(
    private readonly segments: readonly string[],
    private readonly index: ModelIndex,
    options: ResourcePathOptions,
  ) {
    this.maxLiteralLength = resolveLimits(options.limits).maxLiteralLength;
  }

  resolve(): ResourcePath {
    const first = this.segments[0] as string;
    if (first === '$metadata' || first === '$batch') {
      this.expectEnd(first);
      return { kind: first === '$metadata' ? 'metadata' : 'batch' };
    }
    const { name: qualified, predicate } = splitName(first);
    const { model } = this.index;
    const name = qualified.startsWith(`${model.containerName}.`) ? qualified.slice(model.containerName.length + 1) : qualified;
    const set = this.index.entitySet(name);
    if (set) {
      const type = this.index.typeOfSet(set);
      const key = this.key(predicate, type, first);
      return this.walk([{ set, type, key, isCollection: key === undefined }]);
    }
    const functionImport = this.index.functionImport(name);
    if (!functionImport) throw notFound('entity set or function import', qualified, 'the service');
    if (predicate) throw new UriSyntaxError(`function import ${name} takes its parameters in the query string`, name);
    const value = this.take('$value');
    if (value && !functionImport.returnType?.startsWith('Edm.')) {
      throw new UriSyntaxError(`$value applies to a function import returning a primitive value, not ${name}`, name);
    }
    this.expectEnd(name);
    return { kind: 'functionImport', functionImport, value };
  }

  private key(predicate: string | undefined, type: EntityType, where: string): KeyValues | undefined {
    if (predicate === undefined || predicate === '') return undefined;
    return parseKeyPredicate(predicate, type, this.index, this.maxLiteralLength, quoteForMessage(where));
  }

  private take(special: string): boolean {
    if (this.segments[this.i] !== special) return false;
    this.i++;
    return true;
  }

  private expectEnd(after: string): void {
    const next = this.segments[this.i];
    if (next !== undefined) {
      throw new UriSyntaxError(`nothing may follow ${quoteForMessage(after)} in the resource path, found ${quoteForMessage(next)}`, quoteForMessage(next));
    }
  }

  private walk(chain: EntitySegment[]): ResourcePath {
    for (;;) {
      const current = chain[chain.length - 1] as EntitySegment;
      const addressed = { segments: chain, set: current.set, type: current.type };
      const segment = this.segments[this.i];
      if (segment === undefined) {
        return current.isCollection
          ? { kind: 'collection', ...addressed, count: false }
          : { kind: 'entity', ...addressed, key: current.key, mediaValue: false };
      }
      this.i++;
      if (segment === '$count') {
        if (!current.isCollection) throw new UriSyntaxError('$count applies to a collection of entities', '$count');
        this.expectEnd(segment);
        return { kind: 'collection', ...addressed, count: true };
      }
      if (current.isCollection) {
        throw new UriSyntaxError(`${quoteForMessage(segment)} follows a collection: address one entity by its key first`, quoteForMessage(segment));
      }
      if (segment === '$value') {
        if (!current.type.hasStream) throw new UriSyntaxError(`$value applies to a media entity; ${current.type.fullName} is none`, '$value');
        this.expectEnd(segment);
        return { kind: 'entity', ...addressed, key: current.key, mediaValue: true };
      }
      if (segment === '$links') return this.links(addressed, current);
      const { name, predicate } = splitName(segment);
      const navigation = this.index.navigation(current.type, name);
      if (navigation) {
        chain.push(this.navigate(current, navigation, predicate, segment));
        continue;
      }
      const property = this.index.property(current.type, name);
      if (!property) throw notFound('property or navigation property', name, current.type.fullName);
      if (predicate !== undefined) throw new UriSyntaxError(`property ${name} takes no key`, name);
      return this.property(addressed, [property]);
    }
  }

  private navigate(from: EntitySegment, navigation: NavigationProperty, predicate: string | undefined, where: string): EntitySegment {
    const set = this.index.navigationTarget(from.set, navigation);
    const type = this.index.typeOfSet(set);
    const many = navigation.multiplicity === '*';
    if (!many && predicate) throw new UriSyntaxError(`navigation property ${navigation.name} leads to one entity and takes no key`, navigation.name);
    const key = many ? this.key(predicate, type, where) : undefined;
    return { navigation, set, type, key, isCollection: many && key === undefined };
  }

  private links(addressed: Addressed, current: EntitySegment): ResourcePath {
    const segment = this.segments[this.i++];
    if (segment === undefined) throw new UriSyntaxError('$links must be followed by a navigation property', '$links');
    const { name, predicate } = splitName(segment);
    const navigation = this.index.navigation(current.type, name);
    if (!navigation) throw notFound('navigation property', name, current.type.fullName);
    const link = this.navigate(current, navigation, predicate, segment);
    const count = this.take('$count');
    if (count && !link.isCollection) throw new UriSyntaxError('$count applies to a collection of links', '$count');
    this.expectEnd(count ? '$count' : segment);
    return { kind: 'links', ...addressed, link, count };
  }

  private property(addressed: Addressed, properties: Property[]): ResourcePath {
    for (;;) {
      const property = properties[properties.length - 1] as Property;
      const complex = this.index.complexType(property.type);
      const segment = this.segments[this.i];
      if (segment === undefined) return { kind: 'property', ...addressed, properties, property, value: false };
      this.i++;
      if (segment === '$value') {
        if (complex) throw new UriSyntaxError(`$value applies to a primitive property; ${property.name} is complex`, '$value');
        this.expectEnd(segment);
        return { kind: 'property', ...addressed, properties, property, value: true };
      }
      if (!complex) throw new UriSyntaxError(`${property.name} is a primitive property; only $value may follow it`, quoteForMessage(segment));
      const member = this.index.property(complex, segment);
      if (!member) throw notFound('property', segment, complex.fullName);
      properties.push(member);
    }
  }
}

/** Resolves the path below the service root (with or without a leading `/`). */
export function parseResourcePath(path: string, index: ModelIndex, options: ResourcePathOptions = {}): ResourcePath {
  let trimmed = path.startsWith('/') ? path.slice(1) : path;
  if (trimmed.endsWith('/')) trimmed = trimmed.slice(0, -1);
  if (trimmed === '') return { kind: 'serviceDocument' };
  const raw = trimmed.split('/');
  const segments = raw.map((segment, i) => {
    if (segment === '') throw new UriSyntaxError(`segment ${i + 1} of the resource path is empty`, path.slice(0, 40));
    return decodeSegment(segment, i);
  });
  return new PathResolver(segments, index, options).resolve();
}
