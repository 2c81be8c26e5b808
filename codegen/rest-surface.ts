// The REST face as the model defines it: which resources, paths and operations exist, and their
// names. The OpenAPI emitter and the client emitter both read this one description, so the
// document and the client can never disagree about an operation.
import type {
  EdmPrimitiveType,
  EntitySet,
  EntityType,
  FunctionImport,
  Model,
  NavigationProperty,
  Property,
  RestOperation,
} from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import { indexModel } from '../odata/model-index.js';
import { LIST_OPTION_NAMES, isEqualityFilter, schemaNames } from './json-schema.js';
import { toKebabCase, toPascalCase } from './naming.js';

/**
 * Most items of one bulk create (`POST /time-entries:batch`): 413 beyond. One upstream changeset
 * holds them all; a week of time entries for a team fits many times over.
 */
export const BATCH_CREATE_MAX_ITEMS = 100;

/**
 * A read narrowed by `select` is an operation of its own, at the read's path plus this suffix
 * (`/projects/{id}:select`, the AIP-136 custom-method form `:batch` uses too): one path and
 * method have one response shape in OpenAPI, and generators type a response that is either the
 * full entity or any subset of it as all-optional. So the plain read answers the full entity
 * (every property required) and `…:select` answers the Selection shape.
 */
export const SELECTION_SUFFIX = ':select';

/** The path of the selecting twin of a read (`/projects/{id}` -> `/projects/{id}:select`). */
export function selectionPathOf(path: string): string {
  return `${path}${SELECTION_SUFFIX}`;
}

/** The operation id of the selecting twin of a read (`getProject` -> `getProjectSelection`). */
function selectionIdOf(operationId: string): string {
  return `${operationId}Selection`;
}

export interface NavigationResource {
  readonly navigation: NavigationProperty;
  /** Path segment below the item: kebab-case of the navigation name. */
  readonly segment: string;
  readonly path: string;
  readonly isCollection: boolean;
  readonly target: SetResource;
  readonly operationId: string;
  /** The same read narrowed by `select`, at `path` + `:select`. */
  readonly selectionOperationId: string;
}

export interface SetOperationIds {
  readonly list?: string;
  /** The list narrowed by `select` (`GET /projects:select`). */
  readonly listSelection?: string;
  readonly create?: string;
  /** `POST /time-entries:batch`: creates many, all or none (where create exists). */
  readonly batchCreate?: string;
  readonly get: string;
  /** The read by key narrowed by `select` (`GET /projects/{id}:select`). */
  readonly getSelection: string;
  readonly update?: string;
  readonly delete?: string;
}

export interface SetResource {
  readonly set: EntitySet;
  readonly type: EntityType;
  /** PascalCase of the set name (`OrderDetails`): operation ids, tags and client type names. */
  readonly pascalName: string;
  /** Name of the entity type's schema and TypeScript interface (`OrderDetail`). */
  readonly typeName: string;
  /** The type name with its indefinite article, for descriptions (`an OrderDetail`). */
  readonly aTypeName: string;
  readonly collectionPath: string;
  /** `/time-entries:batch`: the bulk create (AIP-136 custom method form). */
  readonly batchPath: string;
  /** `/order-details/{orderId}/{productId}`: one segment per key property, in key order. */
  readonly itemPath: string;
  readonly keys: readonly Property[];
  /** Properties that get an equality query parameter on lists. */
  readonly equalityFilters: readonly Property[];
  readonly operationIds: SetOperationIds;
  readonly navigations: readonly NavigationResource[];
}

export type ReturnShape =
  | { readonly kind: 'none' }
  | { readonly kind: 'named'; readonly typeName: string; readonly isCollection: boolean }
  | { readonly kind: 'primitive'; readonly type: EdmPrimitiveType; readonly isCollection: boolean };

export interface FunctionResource {
  readonly function: FunctionImport;
  readonly method: RestOperation['method'];
  readonly path: string;
  readonly operationId: string;
  /** PascalCase of the first path segment (`Stopwatch`, `ChangesDigest`). */
  readonly tag: string;
  readonly returns: ReturnShape;
}

export interface RestSurface {
  readonly sets: readonly SetResource[];
  readonly functions: readonly FunctionResource[];
}

export function describeRestSurface(model: Model): RestSurface {
  const index = indexModel(model);
  const ids = new OperationIds();
  const partial = model.entitySets.map((set) => {
    const type = index.typeOfSet(set);
    const keys = type.key.map((name) => {
      const property = index.property(type, name);
      if (!property) throw new Error(`key property ${name} missing on ${type.fullName}`);
      return property;
    });
    const typeName = schemaNames.type(type);
    const pascalName = toPascalCase(set.name);
    const collectionPath = `/${set.restPath}`;
    const { creatable, updatable, deletable, addressable } = set.capabilities;
    const operationIds: SetOperationIds = {
      ...(addressable ? { list: ids.take(`list${pascalName}`, set.name), listSelection: ids.take(selectionIdOf(`list${pascalName}`), set.name) } : {}),
      ...(creatable ? { create: ids.take(`create${typeName}`, set.name), batchCreate: ids.take(`batchCreate${pascalName}`, set.name) } : {}),
      get: ids.take(`get${typeName}`, set.name),
      getSelection: ids.take(selectionIdOf(`get${typeName}`), set.name),
      ...(updatable ? { update: ids.take(`update${typeName}`, set.name) } : {}),
      ...(deletable ? { delete: ids.take(`delete${typeName}`, set.name) } : {}),
    };
    return {
      set,
      type,
      pascalName,
      typeName,
      aTypeName: `${/^[AEIOU]/.test(typeName) ? 'an' : 'a'} ${typeName}`,
      collectionPath,
      batchPath: `${collectionPath}:batch`,
      itemPath: collectionPath + keys.map((k) => `/{${k.restName}}`).join(''),
      keys,
      equalityFilters: type.properties.filter(
        (p) => isEqualityFilter(p) && !(LIST_OPTION_NAMES as readonly string[]).includes(p.restName),
      ),
      operationIds,
      navigations: [] as NavigationResource[],
    };
  });
  const byName = new Map(partial.map((r) => [r.set.name, r]));
  for (const resource of partial) {
    for (const navigation of resource.type.navigationProperties) {
      const target = byName.get(index.navigationTarget(resource.set, navigation).name);
      if (!target) throw new Error(`navigation ${navigation.name} leads to no entity set`);
      const isCollection = navigation.multiplicity === '*';
      const verb = isCollection ? 'list' : 'get';
      const segment = toKebabCase(navigation.name);
      const operationId = ids.take(`${verb}${resource.typeName}${toPascalCase(navigation.name)}`, resource.set.name);
      resource.navigations.push({
        navigation,
        segment,
        path: `${resource.itemPath}/${segment}`,
        isCollection,
        target,
        operationId,
        selectionOperationId: ids.take(selectionIdOf(operationId), resource.set.name),
      });
    }
  }
  const functions = model.functionImports.map((fn): FunctionResource => ({
    function: fn,
    method: fn.rest.method,
    path: fn.rest.path,
    operationId: ids.take(fn.restName, ''),
    tag: toPascalCase(fn.rest.path.split('/').find((s) => s !== '') ?? fn.name),
    returns: returnShapeOf(fn.returnType),
  }));
  return { sets: partial, functions };
}

function returnShapeOf(returnType: string | undefined): ReturnShape {
  if (returnType === undefined) return { kind: 'none' };
  const inner = /^Collection\((.+)\)$/.exec(returnType)?.[1];
  const name = inner ?? returnType;
  const isCollection = inner !== undefined;
  if (isEdmPrimitiveType(name)) return { kind: 'primitive', type: name, isCollection };
  return { kind: 'named', typeName: schemaNames.typeByFullName(name), isCollection };
}

/**
 * Hands out operation ids, keeping them unique: when two sets share an entity type (or a
 * function import shadows a derived id), the later one is qualified by its set name.
 */
class OperationIds {
  private readonly taken = new Set<string>();

  take(id: string, qualifier: string): string {
    let unique = id;
    if (this.taken.has(unique) && qualifier !== '') unique = `${id}In${toPascalCase(qualifier)}`;
    for (let n = 2; this.taken.has(unique); n++) unique = `${id}${n}`;
    this.taken.add(unique);
    return unique;
  }
}
