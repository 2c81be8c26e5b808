import type {
  ComplexType,
  EntitySet,
  EntityType,
  FunctionImport,
  Model,
  NavigationProperty,
  Property,
} from './model.js';

/** Lookups over a Model, built once per model (never per request). */
export interface ModelIndex {
  readonly model: Model;
  entitySet(name: string): EntitySet | undefined;
  entityType(fullName: string): EntityType | undefined;
  complexType(fullName: string): ComplexType | undefined;
  functionImport(name: string): FunctionImport | undefined;
  /** The entity type of a set; the set must exist in the model. */
  typeOfSet(set: EntitySet): EntityType;
  property(type: EntityType | ComplexType, name: string): Property | undefined;
  navigation(type: EntityType, name: string): NavigationProperty | undefined;
  /** The entity set a navigation property leads to from `set`, through the association set. */
  navigationTarget(set: EntitySet, nav: NavigationProperty): EntitySet;
}

export function indexModel(model: Model): ModelIndex {
  const sets = new Map(model.entitySets.map((s) => [s.name, s]));
  const types = new Map(model.entityTypes.map((t) => [t.fullName, t]));
  const complex = new Map(model.complexTypes.map((t) => [t.fullName, t]));
  const functions = new Map(model.functionImports.map((f) => [f.name, f]));
  const properties = new Map<EntityType | ComplexType, Map<string, Property>>();
  for (const t of [...model.entityTypes, ...model.complexTypes]) {
    properties.set(t, new Map(t.properties.map((p) => [p.name, p])));
  }
  const navigations = new Map<EntityType, Map<string, NavigationProperty>>();
  for (const t of model.entityTypes) {
    navigations.set(t, new Map(t.navigationProperties.map((n) => [n.name, n])));
  }
  const targets = new Map<string, EntitySet>();
  for (const set of model.entitySets) {
    const type = types.get(set.entityType);
    if (!type) throw new Error(`entity set ${set.name} has unknown type ${set.entityType}`);
    for (const nav of type.navigationProperties) {
      const assocSet = model.associationSets.find(
        (a) =>
          a.association === nav.relationship &&
          a.ends.some((e) => e.role === nav.fromRole && e.entitySet === set.name),
      );
      const end = assocSet?.ends.find((e) => e.role === nav.toRole);
      const target = end
        ? sets.get(end.entitySet)
        : model.entitySets.find((s) => s.entityType === nav.targetType);
      if (target) targets.set(`${set.name}/${nav.name}`, target);
    }
  }
  return {
    model,
    entitySet: (name) => sets.get(name),
    entityType: (name) => types.get(name),
    complexType: (name) => complex.get(name),
    functionImport: (name) => functions.get(name),
    typeOfSet(set) {
      const type = types.get(set.entityType);
      if (!type) throw new Error(`entity set ${set.name} has unknown type ${set.entityType}`);
      return type;
    },
    property: (type, name) => properties.get(type)?.get(name),
    navigation: (type, name) => navigations.get(type)?.get(name),
    navigationTarget(set, nav) {
      const target = targets.get(`${set.name}/${nav.name}`);
      if (!target) throw new Error(`no entity set for ${set.name}/${nav.name}`);
      return target;
    },
  };
}

/**
 * `compile` once per entity set of a model, the result kept as long as the index is: the readers
 * and writers compile each set's code once, never per request. A set's compile may ask for another
 * set's (navigation targets) lazily; graphs of navigations have cycles.
 */
export function perEntitySet<T>(compile: (index: ModelIndex, set: EntitySet) => T): (index: ModelIndex, set: EntitySet) => T {
  const compiled = new WeakMap<ModelIndex, Map<string, T>>();
  return (index, set) => {
    let sets = compiled.get(index);
    if (!sets) compiled.set(index, (sets = new Map()));
    const known = sets.get(set.name);
    if (known !== undefined) return known;
    const result = compile(index, set);
    sets.set(set.name, result);
    return result;
  };
}
