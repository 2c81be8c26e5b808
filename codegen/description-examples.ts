// The examples in generated descriptions (`e.g. \`name,client/name\``), taken from the model the
// artefacts describe, so that the documentation of any model speaks of its own sets and
// properties: fixed examples spoke of time entries and clients in every model's API. Each is the
// first fitting construct in model order; a model without one gets a plain wording.
import type { EntityType, Model, NavigationProperty, Property } from '../odata/model.js';

export interface DescriptionExamples {
  /** A resource path of the REST face, preferring a name of several words (`/time-entries`). */
  readonly resourcePath: string;
  /** An EDM property name beside its REST name, for the casing rule: `` `ID` is `id` ``. */
  readonly propertyCasing: string;
  /** A `filter` expression over REST names (`active eq true and clientId eq 7`). */
  readonly filter: string;
  /** A `select` of a property and one inside an expanded navigation (`name,client/name`). */
  readonly select: string;
  /** A nested selection inside an expansion (`client/name`); undefined without navigations. */
  readonly nestedSelect: string | undefined;
  /** An `expand` path, two navigations deep where the model has one (`project/client`). */
  readonly expand: string;
  /** An entity of the first set by key 7: its OData address and REST path (`Projects(7)`, `/projects/7`). */
  readonly entityAddress: string;
  readonly entityPath: string;
  /** The first set's collection and entity below the base path, for `:select` (`/projects`, `/projects/7`). */
  readonly collectionPath: string;
  readonly itemPath: string;
  /** Selects of the first set's entity and of its list (`id,name`, `name`). */
  readonly itemSelect: string;
  readonly listSelect: string;
}

const isSingle = (nav: NavigationProperty): boolean => nav.multiplicity !== '*';
const INTEGER = new Set(['Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Byte', 'Edm.SByte']);

export function descriptionExamples(model: Model, restBasePath: string): DescriptionExamples {
  const types = new Map(model.entityTypes.map((type) => [type.fullName, type]));
  const typeOfSet = (name: string | undefined) => types.get(model.entitySets.find((s) => s.name === name)?.entityType ?? '');
  const target = (nav: NavigationProperty): EntityType | undefined => types.get(nav.targetType);
  const firstString = (type: EntityType | undefined): Property | undefined =>
    type?.properties.find((p) => p.type === 'Edm.String' && !type.key.includes(p.name)) ?? type?.properties.find((p) => p.type === 'Edm.String');

  const sets = model.entitySets;
  const pathSet = sets.find((s) => s.restPath.includes('-')) ?? sets[0];
  const firstSet = sets[0];
  const firstType = typeOfSet(firstSet?.name);
  const keyOfFirst = firstType?.properties.find((p) => firstType.key.includes(p.name));
  const textOfFirst = firstString(firstType) ?? firstType?.properties.find((p) => p !== keyOfFirst);

  // A boolean and a foreign-key-like integer of one type: `active eq true and clientId eq 7`.
  let filter: string | undefined;
  for (const type of model.entityTypes) {
    const flag = type.properties.find((p) => p.type === 'Edm.Boolean');
    const reference = type.properties.find((p) => INTEGER.has(p.type) && !type.key.includes(p.name) && /I[dD]$/.test(p.name));
    if (flag && reference) {
      filter = `${flag.restName} eq true and ${reference.restName} eq 7`;
      break;
    }
  }
  if (filter === undefined) {
    const key = model.entityTypes[0]?.properties.find((p) => model.entityTypes[0]?.key.includes(p.name));
    filter = key === undefined ? 'id eq 7' : `${key.restName} eq ${INTEGER.has(key.type) ? '7' : "'7'"}`;
  }

  // A type's text property beside the text property of a single-valued navigation's target.
  let select: string | undefined;
  let nestedSelect: string | undefined;
  for (const type of model.entityTypes) {
    const own = firstString(type);
    const nav = type.navigationProperties.find((n) => isSingle(n) && firstString(target(n)) !== undefined);
    const inner = nav && firstString(target(nav));
    if (own && nav && inner) {
      nestedSelect = `${nav.restName}/${inner.restName}`;
      select = `${own.restName},${nestedSelect}`;
      break;
    }
  }
  if (select === undefined) {
    const names = (model.entityTypes[0]?.properties ?? []).slice(0, 2).map((p) => p.restName);
    select = names.length > 0 ? names.join(',') : 'id';
  }

  // Two single-valued navigations deep where there are such, else one navigation.
  let expand: string | undefined;
  for (const type of model.entityTypes) {
    for (const first of type.navigationProperties.filter(isSingle)) {
      const second = target(first)?.navigationProperties.find((n) => isSingle(n) && n.targetType !== type.fullName);
      if (second) {
        expand = `${first.restName}/${second.restName}`;
        break;
      }
    }
    if (expand !== undefined) break;
  }
  expand ??= model.entityTypes.flatMap((t) => t.navigationProperties)[0]?.restName ?? 'navigation';

  return {
    resourcePath: `/${pathSet?.restPath ?? 'items'}`,
    propertyCasing: keyOfFirst === undefined ? '`ID` is `id`' : `\`${keyOfFirst.name}\` is \`${keyOfFirst.restName}\``,
    filter,
    select,
    nestedSelect,
    expand,
    entityAddress: `${firstSet?.name ?? 'Items'}(7)`,
    entityPath: `${restBasePath}/${firstSet?.restPath ?? 'items'}/7`,
    collectionPath: `/${firstSet?.restPath ?? 'items'}`,
    itemPath: `/${firstSet?.restPath ?? 'items'}/7`,
    itemSelect: [keyOfFirst, textOfFirst].flatMap((p) => (p === undefined ? [] : [p.restName])).join(',') || 'id',
    listSelect: (textOfFirst ?? keyOfFirst)?.restName ?? 'id',
  };
}
